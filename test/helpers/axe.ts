/** The accessibility check of the catalogue's browser tests: axe-core run in the page a test has open. */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * A test that runs axe-core on a few pages: twice the suite's default, since axe keeps a core busy for seconds on a
 * large page and the suite's cores are shared with the servers and crawls of other test files.
 */
export const AXE_TIMEOUT_MS = 60_000;

/**
 * The serious and critical axe-core violations of the page `page` has open, each as "<rule> <impact> on N nodes".
 * Only violations are collected in full (`resultTypes`): axe then reports one node of each rule that passed instead
 * of every one, which on a page of a few thousand nodes is most of its time.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate<Array<{ id: string; impact: string; nodes: number }>>(
    "axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((v) => " +
      '({ id: v.id, impact: v.impact, nodes: v.nodes.length })))',
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} ${v.impact} on ${v.nodes} nodes`);
}
