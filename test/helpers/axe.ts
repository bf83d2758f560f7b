/** The accessibility check of the catalogue's browser tests: axe-core run in the page a test has open. */
import axe from 'axe-core';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Browser, Page, ViewportSize } from 'playwright-core';

/**
 * A test that runs axe-core on a few pages: twice the suite's default, since axe keeps a core busy for seconds on a
 * large page and the suite's cores are shared with the servers and crawls of other test files.
 */
export const AXE_TIMEOUT_MS = 60_000;

/** axe-core's minified build, which a page from the disk loads itself. */
const AXE_FILE = pathToFileURL(createRequire(import.meta.url).resolve('axe-core/axe.min.js')).href;

/**
 * The serious and critical axe-core violations of the page `page` has open, each as "<rule> <impact> on N nodes".
 * Only violations are collected in full (`resultTypes`): axe then reports one node of each rule that passed instead
 * of every one, which on a page of a few thousand nodes is most of its time.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  // A page from the disk reads axe-core's file as it reads its own scripts; a page on a server gets its text through
  // the browser's protocol (1.5 MB, which takes longer than the check).
  if (page.url().startsWith('file:')) await page.addScriptTag({ url: AXE_FILE });
  else await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate<Array<{ id: string; impact: string; nodes: number }>>(
    "axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((v) => " +
      '({ id: v.id, impact: v.impact, nodes: v.nodes.length })))',
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} ${v.impact} on ${v.nodes} nodes`);
}

/**
 * One page for each colour scheme and width a file checks with axe-core, opened when first asked for and kept for
 * the file's other checks in that scheme and width: a browser context takes a quarter of a second to open.
 */
export function axePages(browser: () => Browser) {
  const pages = new Map<string, Promise<Page>>();
  return {
    page(colorScheme: 'light' | 'dark', viewport: ViewportSize): Promise<Page> {
      const key = `${colorScheme} ${viewport.width}x${viewport.height}`;
      let page = pages.get(key);
      if (page === undefined) {
        page = browser()
          .newContext({ colorScheme, viewport })
          .then((context) => context.newPage());
        pages.set(key, page);
      }
      return page;
    },
    async close(): Promise<void> {
      await Promise.all([...pages.values()].map(async (page) => (await page).context().close()));
    },
  };
}
