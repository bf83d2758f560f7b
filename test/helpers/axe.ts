/** The accessibility check of the catalogue's browser tests: axe-core run in the page a test has open. */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** The serious and critical axe-core violations of the page `page` has open, each as "<rule> <impact> on N nodes". */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate<Array<{ id: string; impact: string; nodes: number }>>(
    'axe.run(document).then((result) => result.violations.map((v) => ' +
      '({ id: v.id, impact: v.impact, nodes: v.nodes.length })))',
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} ${v.impact} on ${v.nodes} nodes`);
}
