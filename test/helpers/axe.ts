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
 * of every one, which on a page of a few thousand nodes is most of its time. axe-core is loaded into the page once:
 * a page checked again (in another colour scheme or width) keeps it.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (await page.evaluate<boolean>("typeof axe === 'undefined'")) {
    // A page from the disk reads axe-core's file as it reads its own scripts; a page on a server gets its text
    // through the browser's protocol (1.5 MB, which takes longer than the check).
    if (page.url().startsWith('file:')) await page.addScriptTag({ url: AXE_FILE });
    else await page.addScriptTag({ content: axe.source });
  }
  const violations = await page.evaluate<Array<{ id: string; impact: string; nodes: number }>>(
    "axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((v) => " +
      '({ id: v.id, impact: v.impact, nodes: v.nodes.length })))',
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} ${v.impact} on ${v.nodes} nodes`);
}

/**
 * One page for a file's axe-core checks, in the colour scheme and width each check asks for. A check of the page
 * already open switches the scheme and width in place instead of loading the page and axe-core again, which costs
 * more than the check itself: the catalogue's pages take their colours and layout from CSS alone (no script reads
 * the width or the scheme), so a page switched is the page loaded that way.
 */
export function axePage(browser: () => Browser) {
  let opened: Promise<Page> | undefined;
  return {
    async open(url: string, colorScheme: 'light' | 'dark', viewport: ViewportSize): Promise<Page> {
      opened ??= browser().newPage();
      const page = await opened;
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize(viewport);
      if (page.url() !== url) await page.goto(url);
      return page;
    },
    async close(): Promise<void> {
      if (opened !== undefined) await (await opened).context().close();
    },
  };
}
