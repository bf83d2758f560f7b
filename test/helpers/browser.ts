/**
 * The suite's headless Chromium (scripts/browser.mjs), one for all the browser test files a vitest worker runs: the
 * files of a worker share its modules (vitest.config.ts), and a launch costs about two seconds of CPU. A file asks
 * for it with `testBrowser` and ends with `releaseBrowser`, which closes every page and context it opened; the browser
 * closes with the worker (Playwright kills what it launched when its process exits).
 */
import type { Browser, BrowserContext, BrowserContextOptions, Page, ViewportSize } from 'playwright-core';
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

/** The events the tests listen to on a page. */
const RECORDED = ['request', 'requestfailed', 'response', 'pageerror'] as const;

/**
 * The pages of a browser file's tests. A test that needs no context of its own gets the page the file's tests share
 * at a width (opening a page costs a third of a second of CPU); one that changes what a page is (its media,
 * permissions, JavaScript, or an empty cache) gets a context of its own. `endTest` (in afterEach) closes those
 * contexts and removes what the test listened to on the shared pages. Every page gives up on a missing element in
 * seconds, with the locator named, instead of at the test's timeout.
 */
export class TestPages<Width extends string> {
  readonly #shared = new Map<Width, Page>();
  readonly #owned: BrowserContext[] = [];

  constructor(
    private readonly browser: () => Browser,
    private readonly widths: Record<Width, ViewportSize>,
  ) {}

  /** The shared page at `width`, or a page in a context of its own made with `options`. */
  async page(options: Width | BrowserContextOptions): Promise<Page> {
    if (typeof options === 'string') {
      let page = this.#shared.get(options);
      if (page === undefined) {
        page = await this.browser().newPage({ viewport: this.widths[options] });
        page.context().setDefaultTimeout(5_000);
        this.#shared.set(options, page);
      }
      return page;
    }
    const context = await this.browser().newContext(options);
    this.#owned.push(context);
    context.setDefaultTimeout(5_000);
    return context.newPage();
  }

  async endTest(): Promise<void> {
    for (const page of this.#shared.values()) for (const event of RECORDED) page.removeAllListeners(event);
    await Promise.all(this.#owned.splice(0).map((context) => context.close()));
  }
}
