/**
 * The suite's headless Chromium (scripts/browser.mjs), one for all the browser test files a vitest worker runs: the
 * files of a worker share its modules (vitest.config.ts), and a launch costs about two seconds of CPU. A file asks
 * for it with `testBrowser` and ends with `releaseBrowser`, which closes every page and context it opened; the browser
 * closes with the worker (Playwright kills what it launched when its process exits).
 */
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../../scripts/browser.mjs';

let shared: Promise<Browser> | undefined;

/** The worker's browser, launched on first use, and again if it has gone away (a crash ends its connection). */
export async function testBrowser(): Promise<Browser> {
  const browser = await shared?.catch(() => undefined);
  if (browser?.isConnected() === true) return browser;
  shared = launchBrowser();
  return shared;
}

/** Closes the pages and contexts a file opened, so that the next file meets the browser as launched. */
export async function releaseBrowser(browser: Browser | undefined): Promise<void> {
  if (browser === undefined) return;
  await Promise.all(browser.contexts().map((context) => context.close()));
}
