/**
 * The Changes page in a real headless Chromium (scripts/browser.mjs), opened from the disk: the sample API's release 0
 * and then its next release crawled into one --out, the page reached from the front page, what it lists compared
 * with the release's own list of changes (SampleData.changes), every link on it leading to a page of the snapshot, a
 * changed record's page linking back and saying each field's old and new value, the page a removed record keeps (from
 * the disk, and through `serve` at the record's address with 410), the width of a phone, and axe-core light and dark
 * at both widths.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { releaseBrowser, testBrowser, TestPages } from '../helpers/browser.js';
import { createSampleData, startSampleApi, type SampleData } from '../../src/sample-api/index.js';
import { startServe } from '../../src/serve/index.js';
import { AXE_TIMEOUT_MS, axePage, seriousViolations } from '../helpers/axe.js';
import { crawlForTest } from '../helpers/crawl.js';
import { suiteDir } from '../helpers/temp-dir.js';

const SEED = 4;
const RECORDS = 6;
const release0 = createSampleData({ seed: SEED, records: RECORDS });
const release1 = createSampleData({ seed: SEED, records: RECORDS, release: 1 });
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

function labelOf(data: SampleData, collection: string, id: string): string {
  const record = data.byName.get(collection)!.byId.get(id)!;
  return String(record.attributes.term ?? record.attributes.name);
}

describe('the Changes page in a browser', () => {
  let browser: Browser;
  let out: string;
  let remove: () => Promise<void>;
  const url = (file: string) => pathToFileURL(path.join(out, file)).href;
  /** The page the axe-core checks use. */
  const checked = axePage(() => browser);

  beforeAll(async () => {
    const suite = await suiteDir();
    remove = suite.remove;
    out = path.join(suite.dir, 'out');
    browser = await testBrowser();
    for (const release of [0, 1]) {
      const api = await startSampleApi({ seed: SEED, records: RECORDS, pageSize: 4, release });
      try {
        await crawlForTest(api.rootUrl, out);
      } finally {
        await api.close();
      }
    }
  }, 120_000);
  afterAll(async () => {
    await releaseBrowser(browser);
    await remove?.();
  });

  /** The page the tests share at a desktop's width, or a context of a test's own. */
  const pages = new TestPages(() => browser, { desktop: DESKTOP });
  afterEach(() => pages.endTest());

  /**
   * A page that records every script error and failed request until the test ends: the shared page at a desktop's
   * width, or a context of its own with `options`.
   */
  async function open(options?: BrowserContextOptions) {
    const page = await pages.page(options ?? 'desktop');
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('requestfailed', (request) => errors.push(`${request.url()}: ${request.failure()?.errorText}`));
    return { page, errors };
  }

  /** The text of each item under the heading with `id`, as the browser renders it. */
  const items = (page: Page, id: string) => page.locator(`h2#${id} + ul > li`).allInnerTexts();

  it('is reached from the front page and lists what the next release changed', async () => {
    const { page, errors } = await open();
    await page.goto(url('index.html'));
    await page.getByRole('link', { name: /added, .* removed/ }).click();
    expect(page.url()).toBe(url('_catalogue/changes.html'));
    expect(await page.title()).toBe('Changes since the previous snapshot');

    const expectItems = async (id: string, data: SampleData, kind: 'added' | 'removed') => {
      const expected = release1.changes.filter((c) => c.kind === kind);
      const shown = await items(page, id);
      expect(shown).toHaveLength(expected.length);
      for (const c of expected) {
        const label = labelOf(data, c.collection, c.id);
        expect(shown.filter((s) => s.startsWith(`${label} (`) && s.includes(`id ${c.id})`))).toHaveLength(1);
      }
    };
    await expectItems('added', release1, 'added');
    await expectItems('removed', release0, 'removed');
    const renames = release1.changes.flatMap((c) => (c.kind === 'attribute' && c.attribute === 'term' ? [c] : []));
    expect(await items(page, 'renamed')).toEqual(
      renames.map((c) => expect.stringContaining(`“${String(c.old)}” is now ${String(c.new)} (`) as unknown),
    );
    const statuses = release1.changes.flatMap((c) => (c.kind === 'attribute' && c.attribute === 'status' ? [c] : []));
    expect(await items(page, 'status')).toEqual(
      statuses.map(
        (c) =>
          expect.stringMatching(
            new RegExp(`^${labelOf(release1, c.collection, c.id)} .*: from ${String(c.old)} to ${String(c.new)}$`),
          ) as unknown,
      ),
    );
    expect(errors).toEqual([]);
  });

  it('opens the page each removed record keeps, with its last term, status and definition', async () => {
    const { page, errors } = await open();
    const removed = release1.changes.filter((c) => c.kind === 'removed');
    expect(await page.goto(url('_catalogue/changes.html')).then(() => items(page, 'removed'))).toHaveLength(
      removed.length,
    );
    for (const c of removed) {
      const label = labelOf(release0, c.collection, c.id);
      const before = release0.byName.get(c.collection)!.byId.get(c.id)!.attributes;
      await page.goto(url('_catalogue/changes.html'));
      await page.locator('h2#removed + ul').getByRole('link', { name: label, exact: true }).click();
      expect(page.url()).toBe(url(`_catalogue/${c.collection}/removed-${c.id}.html`));
      expect(await page.locator('h1').textContent()).toBe(label);
      expect(await page.locator('p.removed').innerText()).toMatch(/^Removed in the snapshot of \d{4}-\d\d-\d\d /);
      expect(await page.locator('p.definition').textContent()).toBe(String(before.definition));
      if (typeof before.status === 'string') {
        expect(await page.locator('p.removed .badge').textContent()).toBe(before.status);
      }
    }
    expect(errors).toEqual([]);
  });

  it("shows each edited field's old and new value on the Changes page and on the record's page", async () => {
    const { page, errors } = await open();
    const edit = release1.changes.find((c) => c.kind === 'attribute' && c.attribute === 'definition')!;
    if (edit.kind !== 'attribute') throw new Error('an attribute change');
    const label = labelOf(release1, edit.collection, edit.id);
    const line = `Definition: “${String(edit.old)}” → “${String(edit.new)}”`;
    await page.goto(url('_catalogue/changes.html'));
    const item = page.locator('h2#edited + ul > li').filter({ hasText: `${label} (` });
    // Each field on a line of its own, the lines separated as a sentence reads them.
    expect((await item.locator('.edit').allInnerTexts()).map((t) => t.replace(/[;.]$/, ''))).toContain(line);
    // The old value struck through, the new one marked as inserted.
    expect(await item.locator('del').first().textContent()).toBe(`“${String(edit.old)}”`);
    await item.getByRole('link', { name: label, exact: true }).click();
    expect(await page.locator('h1').textContent()).toBe(label);
    const note = await page.locator('p.changed').innerText();
    expect(note).toMatch(/^Changed since the snapshot of \d{4}-\d\d-\d\d \d\d:\d\d UTC:/);
    expect(note).toContain(line);
    expect(errors).toEqual([]);
  });

  it('links only to pages the snapshot holds, and an added record opens from it', async () => {
    const { page, errors } = await open();
    await page.goto(url('_catalogue/changes.html'));
    const hrefs = await page
      .locator('main a')
      .evaluateAll((links) =>
        links.map((a) => (a as unknown as { href: string }).href).filter((h) => h.startsWith('file:')),
      );
    expect(hrefs.length).toBeGreaterThan(5);
    // Each as the browser resolved it: a page of the snapshot, with its one heading (read from the disk, as a browser
    // opening it would; opening each of them is seconds of rendering that proves no more).
    for (const href of new Set(hrefs)) {
      const file = fileURLToPath(href.replace(/#.*$/, ''));
      expect(existsSync(file), href).toBe(true);
      const html = await readFile(file, 'utf8');
      expect(html.match(/<h1[\s>]/g), href).toHaveLength(1);
    }
    const added = release1.changes.find((c) => c.kind === 'added' && c.collection === 'siteusages')!;
    const label = labelOf(release1, added.collection, added.id);
    await page.goto(url('_catalogue/changes.html'));
    await page.locator('h2#added + ul').getByRole('link', { name: label }).click();
    expect(await page.locator('h1').textContent()).toBe(label);
    expect(await page.locator('p.changed').innerText()).toMatch(/^New since the snapshot of /);
    expect(errors).toEqual([]);
  });

  it('works through cv-snapshot serve: every request on its origin, an added record opened', async () => {
    const served = await startServe({ dir: out, port: 0 });
    const { page, errors } = await open();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    try {
      await page.goto(`${served.origin}/index.html`);
      await page.getByRole('link', { name: /added, .* removed/ }).click();
      expect(new URL(page.url()).pathname).toBe('/_catalogue/changes.html');
      const added = release1.changes.find((c) => c.kind === 'added' && c.collection === 'units')!;
      const label = labelOf(release1, added.collection, added.id);
      await page.locator('h2#added + ul').getByRole('link', { name: label, exact: true }).first().click();
      expect(await page.locator('h1').textContent()).toBe(label);
      expect(requests.filter((url) => new URL(url).origin !== served.origin)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await served.close();
    }
  });

  it("answers a browser on a removed record's address with its page and 410, a client with JSON:API", async () => {
    const served = await startServe({ dir: out, port: 0 });
    const { page } = await open();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    try {
      const removed = release1.changes.find((c) => c.kind === 'removed')!;
      const address = `${served.url}${removed.collection}/${removed.id}/`;
      const response = await page.goto(address);
      expect(response!.status()).toBe(410);
      expect(await page.locator('h1').textContent()).toBe(labelOf(release0, removed.collection, removed.id));
      // Its links work from the API address: the Changes page, through serve.
      await page.getByRole('link', { name: 'All changes' }).click();
      expect(new URL(page.url()).pathname).toBe('/_catalogue/changes.html');
      expect(requests.filter((url) => new URL(url).origin !== served.origin)).toEqual([]);
      const client = await fetch(address, { headers: { Accept: 'application/vnd.api+json' } });
      expect(client.status).toBe(404);
      expect(((await client.json()) as { errors: Array<{ status: string }> }).errors[0]!.status).toBe('404');
      // An address no record ever had is the 404 page.
      expect((await page.goto(`${served.url}${removed.collection}/no-such-term/`))!.status()).toBe(404);
    } finally {
      await served.close();
    }
  });

  it("says on a renamed record's page what changed, and links to the Changes page", async () => {
    const { page, errors } = await open({ viewport: PHONE });
    const rename = release1.changes.find((c) => c.kind === 'attribute' && c.attribute === 'term')!;
    if (rename.kind !== 'attribute') throw new Error('a rename is an attribute change');
    await page.goto(url(`_catalogue/${rename.collection}/r-${rename.id}.html`));
    expect(await page.locator('h1').textContent()).toBe(String(rename.new));
    expect(await page.locator('p.changed').innerText()).toContain(`renamed from “${String(rename.old)}”`);
    await page.getByRole('link', { name: 'All changes' }).click();
    expect(page.url()).toBe(url('_catalogue/changes.html'));
    // Nothing wider than a phone's screen.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    expect(errors).toEqual([]);
  });

  // One test per page, colour scheme and width, each with room for axe-core on a machine whose cores are shared; a
  // page's checks follow one another, so that it is loaded once for all of them. A changed record's page is among
  // them, with its line saying what changed.
  const changed = release1.changes.find((c) => c.kind === 'attribute' && c.attribute === 'term')!;
  const gone = release1.changes.find((c) => c.kind === 'removed')!;
  const files = [
    '_catalogue/changes.html',
    'index.html',
    `_catalogue/${changed.collection}/r-${changed.id}.html`,
    `_catalogue/${gone.collection}/removed-${gone.id}.html`,
  ];
  for (const file of files) {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const viewport of [DESKTOP, PHONE]) {
        it(
          `has no serious or critical accessibility violation (axe-core): ${file}, ${colorScheme}, ${viewport.width}px`,
          async () => {
            const page = await checked.open(url(file), colorScheme, viewport);
            expect(await seriousViolations(page)).toEqual([]);
          },
          AXE_TIMEOUT_MS,
        );
      }
    }
  }
});
