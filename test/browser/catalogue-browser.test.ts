/**
 * The catalogue in a real headless Chromium (scripts/browser.mjs): opened from the disk, from `cv-snapshot serve` and
 * from static hosts at the root and under a sub-path; clicked through, searched, sorted and filtered, used with the
 * keyboard and without JavaScript, at a phone's width, and checked by axe-core. One browser, shared with the other
 * browser files of the worker (test/helpers/browser.ts).
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { releaseBrowser, testBrowser, TestPages } from '../helpers/browser.js';
import { addCatalogue } from '../../src/pipeline/add-catalogue.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { startServe, type ServeHandle } from '../../src/serve/index.js';
import { sendJson } from '../helpers/http-server.js';
import { AXE_TIMEOUT_MS, axePage, seriousViolations } from '../helpers/axe.js';
import { crawlForTest } from '../helpers/crawl.js';
import { HOSTILE_ID, startFindingsSource } from '../helpers/findings-source.js';
import { readJson } from '../helpers/snapshot.js';
import { suiteDir } from '../helpers/temp-dir.js';
import {
  linksOnly,
  recordDocument,
  startTinySource,
  type TinyRecord,
  type TinySource,
} from '../helpers/tiny-source.js';

const require = createRequire(import.meta.url);
const ROOT_PATH = 'sms/cv/api/v1';
const PHONE = { width: 390, height: 844 };

interface Listed {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data?: { type: string; id: string } | null }>;
}

/** A source with one collection of 1,200 records (three catalogue pages), a hostile term and an unbroken long one. */
const BIG = 1200;
const HOSTILE = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>&amp;`;
const LONG = `${'Wasserstoffbrückenbindungsenergie'.repeat(8)}`;
/** Terms that people type without their accents and signs. */
const FOLDED: Record<number, string> = { 9: 'Ångström', 10: 'µmol per litre', 11: 'Åland Islands' };
function bigRecord(i: number): TinyRecord {
  const term = i === 7 ? HOSTILE : i === 8 ? LONG : (FOLDED[i] ?? `term-${String(i).padStart(4, '0')}`);
  return {
    id: String(i),
    term,
    attributes: {
      status: i % 3 === 0 ? 'PENDING' : 'ACCEPTED',
      definition: `Definition of record ${i}.`,
      provenance_uri: i === 8 ? `https://example.org/${LONG}` : null,
    },
    // Record 1 was replaced by record 2: a successor given with links only, as the spec gives it (2.4).
    ...(i === 1 ? { relationships: linksOnly('successor') } : {}),
  };
}
function startBigSource(): Promise<TinySource> {
  const units = Array.from({ length: BIG }, (_, i) => bigRecord(i + 1));
  return startTinySource({
    collections: { units },
    answers: {
      'units/1/relationships/successor': (res, base) =>
        sendJson(res, 200, {
          data: { type: 'Unit', id: '2' },
          links: { self: `${base}units/1/relationships/successor` },
        }),
      'units/1/successor/': (res, base) => sendJson(res, 200, recordDocument(base, 'units', units[1]!)),
    },
  });
}

/** Entries past the report's cap of 1,000 findings a rule: their ids are not numeric (findings-source.ts). */
const NOT_NUMERIC = 1001;

const TYPES: Record<string, string> = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript' };

/**
 * A static host with the tree at `prefix`: serve-handler (what `npx serve` runs) with the tree's serve.json, or, under
 * a sub-path, a plain file host as nginx's `alias` is (a URL ending in `/` gives its index.html, no redirects).
 */
async function startStaticHost(dir: string, prefix: string): Promise<http.Server & { url: string }> {
  const handler = require('serve-handler') as (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    config: object,
  ) => Promise<void>;
  const config = require(path.join(dir, 'serve.json')) as object;
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url ?? '/', 'http://host').pathname);
    if (!url.startsWith(prefix)) return void res.writeHead(404).end();
    if (prefix === '/') return void handler(req, res, { ...config, public: dir });
    const file = path.join(dir, url.slice(prefix.length) + (url.endsWith('/') ? 'index.html' : ''));
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/json' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(server, { url: `http://127.0.0.1:${port}${prefix}` });
}

describe('the catalogue in a browser', () => {
  let browser: Browser;
  let api: SampleApi;
  let big: TinySource;
  let out: string;
  let bigOut: string;
  let served: ServeHandle;
  let remove: () => Promise<void>;
  let suiteRoot: string;
  let front: string;
  /** A community record of the sample API and the root term it points at. */
  let community: Listed;
  let rootTerm: Listed;
  /** The name of the community `community` belongs to. */
  let communityName: string;
  /** The page the axe-core checks use. */
  const checked = axePage(() => browser);

  beforeAll(async () => {
    const suite = await suiteDir();
    remove = suite.remove;
    suiteRoot = suite.dir;
    [browser, api, big] = await Promise.all([
      testBrowser(),
      startSampleApi({ records: 5, pageSize: 2, seed: 11 }),
      startBigSource(),
    ]);
    out = path.join(suite.dir, 'out');
    bigOut = path.join(suite.dir, 'big');
    await crawlForTest(api.rootUrl, out);
    await crawlForTest(big.root, bigOut);
    served = await startServe({ dir: out, port: 0 });
    front = pathToFileURL(path.join(out, 'index.html')).href;
    const communities = (await readJson(out, `${ROOT_PATH}/units-communities/index.html`)) as { data: Listed[] };
    community = communities.data.find((r) => r.relationships?.root?.data)!;
    const units = (await readJson(out, `${ROOT_PATH}/units/index.html`)) as { data: Listed[] };
    rootTerm = units.data.find((r) => r.id === community.relationships!.root!.data!.id)!;
    const groups = (await readJson(out, `${ROOT_PATH}/communities/index.html`)) as { data: Listed[] };
    const group = groups.data.find((g) => g.id === community.relationships!.community!.data!.id)!;
    communityName = String(group.attributes.term);
  }, 120_000);
  afterAll(async () => {
    await releaseBrowser(browser);
    await Promise.all([served?.close(), api?.close(), big?.close()]);
    await remove?.();
  });

  /** The page the tests share at a desktop's width (Playwright's default), or a context of a test's own. */
  const pages = new TestPages(() => browser, { desktop: { width: 1280, height: 720 } });
  afterEach(() => pages.endTest());

  /**
   * A page that records every request it makes and every answer that is not a success, until the test ends. A test
   * that gives `options` (`{}` for an empty cache, or a page whose media or permissions it changes) gets a context of
   * its own; the others share one page.
   */
  async function open(options?: BrowserContextOptions) {
    const page = await pages.page(options ?? 'desktop');
    const requests: string[] = [];
    const failures: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('requestfailed', (request) => {
      // A click that leaves a page cancels what it was still loading (a 404 shows as a response, below).
      const reason = request.failure()?.errorText;
      if (reason !== 'net::ERR_ABORTED') failures.push(`${request.url()}: ${reason}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.url()}: ${response.status()}`);
    });
    page.on('pageerror', (error) => errors.push(error.message));
    /** Every request went to the origin the pages came from, nothing failed, and no script threw. */
    const clean = (origin: string) => {
      expect(failures).toEqual([]);
      expect(errors).toEqual([]);
      expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    };
    return { page, requests, clean };
  }

  const heading = (page: Page) => page.locator('h1').textContent();
  /**
   * The text of each element the CSS `selector` finds in the page `page` has loaded, read by the page's own script: a
   * page that is only read needs no locator, whose first use on each page costs Playwright's script of its own.
   */
  const textsOf = (page: Page, selector: string) =>
    page.evaluate<string[]>(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent)`);
  const label = (record: Listed) => String(record.attributes.term ?? record.attributes.name);

  /** Front page → collection → record → related record, then back twice. */
  async function clickThrough(page: Page, url: string): Promise<void> {
    await page.goto(url);
    expect(await heading(page)).toBe('Controlled vocabulary snapshot');
    // Community variants are reached from their vocabulary's card.
    await page
      .locator('ul.vocabularies > li')
      .filter({ has: page.getByRole('link', { name: 'Units', exact: true }) })
      .getByRole('link', { name: /community variants$/ })
      .click();
    expect(await heading(page)).toBe('Units: community variants');
    await page
      .getByRole('row')
      .filter({ hasText: community.id })
      .locator('td:nth-child(2)')
      .getByRole('link', { name: label(community) })
      .first()
      .click();
    expect(await heading(page)).toBe(label(community));
    const related = page.locator('dt:text-is("Root") + dd a');
    expect(await related.textContent()).toBe(label(rootTerm));
    await related.click();
    expect(await heading(page)).toBe(label(rootTerm));
    // The root term lists the community variant that points at it.
    const variants = page.locator('h2:text-is("Community variants") + ul');
    await expect(variants.getByRole('link', { name: label(community) }).count()).resolves.toBeGreaterThan(0);
    await page.goBack();
    expect(await heading(page)).toBe(label(community));
    await page.goBack();
    expect(await heading(page)).toBe('Units: community variants');
    // Every page's breadcrumb leads back to the front page.
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Catalogue' }).click();
    expect(await heading(page)).toBe('Controlled vocabulary snapshot');
  }

  it('clicks from the front page to a record and a related record and back, from the disk', async () => {
    const { page, clean } = await open();
    await clickThrough(page, front);
    clean('null');
  });

  it('does the same through cv-snapshot serve, which answers a browser on an API URL with its page', async () => {
    const { page, clean } = await open();
    await clickThrough(page, served.url);
    // A record's API URL opened in the browser gets the record's page, whose links lead on.
    await page.goto(`${served.url}units/${rootTerm.id}/`);
    expect(await heading(page)).toBe(label(rootTerm));
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Units' }).click();
    expect(await heading(page)).toBe('Units');
    clean(served.origin);
    // A JSON:API client still gets the JSON at the same URL.
    const json = (await (await fetch(`${served.url}units/${rootTerm.id}/`)).json()) as { data: Listed };
    expect(json.data.id).toBe(rootTerm.id);
  });

  it('gets the search index compressed through serve, and searches with it', async () => {
    // An empty cache: every script comes from serve, with its headers.
    const { page, clean } = await open({});
    const answers: Array<Promise<{ url: string; encoding: string | undefined; size: number }>> = [];
    page.on('response', (response) => {
      if (response.request().resourceType() !== 'script') return;
      answers.push(
        response.allHeaders().then((headers) => ({
          url: response.url(),
          encoding: headers['content-encoding'],
          size: Number(headers['content-length']),
        })),
      );
    });
    await page.goto(`${served.url}?q=${encodeURIComponent(label(rootTerm))}`);
    await expect(
      page
        .locator('#results li a')
        .filter({ hasText: label(rootTerm) })
        .count(),
    ).resolves.toBeGreaterThan(0);
    const scripts = await Promise.all(answers);
    // What the front page loads for search (Chromium asks for gzip, deflate, br): Brotli, smaller than stored.
    const front = await readFile(path.join(out, 'index.html'), 'utf8');
    for (const [, src] of front.matchAll(/<script src="([^"]+)"><\/script>/g)) {
      const stored = await readFile(path.join(out, ...src!.split('/')));
      const loaded = scripts.find((s) => s.url.endsWith(`/${src}`));
      expect(loaded, src).toBeDefined();
      if (stored.length < 1024) continue;
      expect(loaded!.encoding, src).toBe('br');
      expect(loaded!.size, src).toBeLessThan(stored.length);
    }
    clean(served.origin);
  });

  it('does the same on a static host at its root and under a sub-path', async () => {
    for (const prefix of ['/', '/mirror/cv/']) {
      const host = await startStaticHost(out, prefix);
      try {
        const { page, clean } = await open();
        await clickThrough(page, host.url);
        clean(new URL(host.url).origin);
      } finally {
        host.closeAllConnections();
        await new Promise((resolve) => host.close(resolve));
      }
    }
  });

  it('searches as you type, opens a result, and keeps the query in the address', async () => {
    const { page, clean } = await open();
    await page.goto(front);
    const term = label(rootTerm);
    await page.getByLabel('Search terms').pressSequentially(term);
    const result = page.locator('#results li').filter({ hasText: ' · Units · ' }).getByRole('link', { name: term });
    await expect(result.count()).resolves.toBe(1);
    // The address follows the query once typing pauses.
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe(term);
    await result.click();
    expect(await heading(page)).toBe(term);

    // A shared ?q= address opens with the search done.
    await page.goto(`${front}?q=${encodeURIComponent(term)}`);
    expect(await page.locator('#q').inputValue()).toBe(term);
    await expect(page.locator('#results li a').filter({ hasText: term }).count()).resolves.toBeGreaterThan(0);
    await page.locator('#q').fill('zzzz no such term');
    expect(await page.locator('#search-status').textContent()).toBe('No record matches.');
    clean('null');
  });

  it('is usable with the keyboard alone', async () => {
    const { page } = await open();
    await page.goto(front);
    const focused = () => page.evaluate<string>("document.activeElement?.id ?? ''");
    for (let i = 0; i < 5 && (await focused()) !== 'q'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('q');
    await page.keyboard.type('a');
    // Arrow keys move through the results, Enter opens one.
    await page.keyboard.press('ArrowDown');
    const results = await page.locator('#results li > a').allTextContents();
    expect(results.length).toBeGreaterThan(1);
    const active = () => page.evaluate<string>('document.activeElement.textContent');
    expect(await active()).toBe(results[0]);
    await page.keyboard.press('ArrowDown');
    expect(await active()).toBe(results[1]);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await focused()).toBe('q');
    await page.keyboard.press('ArrowDown');
    const first = await active();
    expect(first).toBe(results[0]);
    await page.keyboard.press('Enter');
    await page.waitForURL(/_catalogue\//);
    expect(await heading(page)).toBe(first);

    // On a collection page, a column sorts from the keyboard.
    await page.goto(pathToFileURL(path.join(out, '_catalogue/units/page-1.html')).href);
    await page.locator('th button.sort', { hasText: 'Id' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    expect(await page.locator('th', { hasText: 'Id' }).getAttribute('aria-sort')).toBe('descending');
  });

  it('filters and sorts a whole collection, not only the rows of its page', async () => {
    const { page, clean } = await open();
    await page.goto(pathToFileURL(path.join(bigOut, '_catalogue/units/page-1.html')).href);
    const rows = page.locator('table.records tbody tr');
    expect(await rows.count()).toBe(500);
    const pages = page.locator('nav.pages').first();
    expect(await pages.textContent()).toContain('Page 1 of 3');
    await expect(pages.isVisible()).resolves.toBe(true);

    // A record listed on page 3 is found from page 1.
    await page.getByLabel('Filter this collection').fill('term-1150');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().getByRole('link').textContent()).toBe('term-1150');
    await expect(pages.isVisible()).resolves.toBe(false);

    // Status filter: every PENDING record of the collection (every third), the first 500 drawn, then more.
    await page.getByLabel('Filter this collection').fill('');
    await page.getByLabel('Status').selectOption('PENDING');
    expect(await page.locator('#table-status').textContent()).toBe(`${BIG / 3} of ${BIG} records.`);
    expect(await rows.count()).toBe(BIG / 3);
    expect(await page.locator('tbody .badge').allTextContents()).toEqual(Array(BIG / 3).fill('PENDING'));

    // Sorting by id, descending, over the whole collection: 1200 first; 500 drawn, then 500 more on request.
    await page.getByLabel('Status').selectOption('');
    const byId = page.locator('th button.sort', { hasText: 'Id' });
    await byId.click();
    await byId.click();
    const ids = async () => (await rows.locator('td:first-child').allTextContents()).map(Number);
    expect((await ids()).slice(0, 3)).toEqual([1200, 1199, 1198]);
    expect(await rows.count()).toBe(500);
    await page.getByRole('button', { name: 'Show 500 more' }).click();
    expect(await rows.count()).toBe(1000);
    expect((await ids()).at(-1)).toBe(201);

    // The order is kept in the address: a reload (or a shared link) keeps it, and so does a filter.
    expect(new URL(page.url()).searchParams.get('sort')).toBe('-Id');
    await page.reload();
    expect((await ids()).slice(0, 2)).toEqual([1200, 1199]);
    await page.getByLabel('Filter this collection').fill('term-11');
    await page.reload();
    expect(await page.getByLabel('Filter this collection').inputValue()).toBe('term-11');
    expect((await ids()).slice(0, 2)).toEqual([1199, 1198]);

    // Back to no filter and no sort: the page as it was built.
    await page.goto(pathToFileURL(path.join(bigOut, '_catalogue/units/page-1.html')).href);
    expect((await ids()).slice(0, 2)).toEqual([1, 2]);
    clean('null');
  });

  it('shows hostile source text as text on every page and in search results', async () => {
    const { page, clean } = await open();
    await page.goto(pathToFileURL(path.join(bigOut, '_catalogue/units/r-7.html')).href);
    expect(await heading(page)).toBe(HOSTILE);
    // The record's JSON, shown in the page: its text, never a page of its own.
    await page.getByText('Show the JSON').click();
    const json = JSON.parse((await page.locator('pre.json').textContent())!) as { attributes: object };
    expect(json.attributes).toMatchObject({ term: HOSTILE });
    await page.goto(pathToFileURL(path.join(bigOut, '_catalogue/units/page-1.html')).href);
    expect(await page.getByRole('row').filter({ hasText: 'term-0006' }).count()).toBe(1);
    expect(await page.locator('tbody tr:nth-child(7) a').textContent()).toBe(HOSTILE);
    await page.getByLabel('Filter this collection').fill('onerror');
    expect(await page.locator('tbody tr a').allTextContents()).toEqual([HOSTILE]);
    await page.goto(`${pathToFileURL(path.join(bigOut, 'index.html')).href}?q=onerror`);
    expect(await page.locator('#results li a').allTextContents()).toEqual([HOSTILE]);
    expect(await page.evaluate<unknown>('window.pwned')).toBeUndefined();
    expect(await page.locator('main img').count()).toBe(0);
    clean('null');
  });

  it('copies a record URI as the source gives it', async () => {
    const { page } = await open({});
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.origin });
    await page.goto(`${served.origin}/_catalogue/units/r-${rootTerm.id}.html`);
    await page.getByRole('button', { name: 'Copy URI' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    const source = (await (await fetch(`${api.rootUrl}units/${rootTerm.id}/`)).json()) as {
      data: { links: { self: string } };
    };
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(source.data.links.self);
  });

  it('browses without JavaScript, and says that search needs it', async () => {
    const { page, requests } = await open({ javaScriptEnabled: false });
    await page.goto(front);
    // (Playwright's text locators skip <noscript>, so the paragraph is found by its place.)
    const notice = page.locator('main noscript p');
    await expect(notice.isVisible()).resolves.toBe(true);
    expect(await notice.textContent()).toContain('Search needs JavaScript');
    await page.getByRole('link', { name: 'Units', exact: true }).click();
    expect(await heading(page)).toBe('Units');
    await expect(page.locator('#table-tools').isVisible()).resolves.toBe(false);
    await page
      .getByRole('link', { name: label(rootTerm), exact: true })
      .first()
      .click();
    expect(await heading(page)).toBe(label(rootTerm));
    // No button but the search form's, which opens the front page with ?q=.
    expect(await page.locator('main').getByRole('button').count()).toBe(0);
    expect(requests.length).toBeGreaterThan(3);
  });

  const bigFront = () => pathToFileURL(path.join(bigOut, 'index.html')).href;
  const file = (rel: string) => pathToFileURL(path.join(out, rel)).href;
  const resultLabels = (page: Page) => page.locator('#results li > a').allTextContents();

  it('finds a term the way people type it: accents, signs and case fold', async () => {
    const { page, clean } = await open();
    await page.goto(bigFront());
    for (const [query, expected] of [
      ['angstrom', 'Ångström'],
      ['ANGSTRÖM', 'Ångström'],
      ['umol', 'µmol per litre'],
      ['aland', 'Åland Islands'],
    ]) {
      await page.locator('#q').fill(query!);
      expect((await resultLabels(page))[0], query).toBe(expected);
    }
    clean('null');
  });

  it("goes from a pasted URI, path or collection/id to the record; an id ranks that id's records first", async () => {
    const { page, clean } = await open();
    await page.goto(front);
    for (const address of [
      `${api.rootUrl}units/${rootTerm.id}/?format=api`,
      `/${ROOT_PATH}/units/${rootTerm.id}/`,
      `units/${rootTerm.id}`,
    ]) {
      await page.locator('#q').fill(address);
      expect(await resultLabels(page), address).toEqual([label(rootTerm)]);
    }
    await page.locator('#q').press('Enter');
    expect(await heading(page)).toBe(label(rootTerm));
    expect(await page.title()).toBe(`${label(rootTerm)} — Units`);

    await page.goto(front);
    await page.locator('#q').fill(rootTerm.id);
    const hrefs = await page
      .locator('#results li > a')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    expect(hrefs[0]).toMatch(new RegExp(`/r-${rootTerm.id}\\.html$`));
    clean('null');
  });

  it('reaches every match, shows the definition and community of each, from the header of every page', async () => {
    const { page, clean } = await open();
    await page.goto(`${bigFront()}?q=term-00`);
    const total = Number(/^(\d+) records match/.exec((await page.locator('#search-status').textContent())!)?.[1]);
    expect(total).toBe(94); // term-0001 to term-0099 but the five records of other terms
    const more = page.locator('#more-results');
    while (await more.isVisible()) await more.click();
    expect(await page.locator('#results li').count()).toBe(total);

    // A result says what the record is: its definition's start, and a variant's community.
    await page.goto(`${front}?q=${encodeURIComponent(label(community))}`);
    const variant = page.locator('#results li').filter({ hasText: `community ${communityName}` });
    await expect(variant.count()).resolves.toBeGreaterThan(0);
    const root = page.locator('#results li').filter({ hasText: ' · Units · ' });
    expect(await root.locator('.excerpt').allTextContents()).toEqual([String(rootTerm.attributes.definition)]);

    // The search box is in the header of a record page and of a collection page; it opens the front page's search.
    for (const from of [`_catalogue/units/r-${rootTerm.id}.html`, '_catalogue/units-communities/page-1.html']) {
      await page.goto(file(from));
      await page.locator('header').getByLabel('Search terms').fill(label(rootTerm));
      await page.locator('header').getByLabel('Search terms').press('Enter');
      await page.waitForURL(/\/index\.html\?q=/);
      expect(await page.locator('#q').inputValue(), from).toBe(label(rootTerm));
      expect(await resultLabels(page), from).toContain(label(rootTerm));
    }
    clean('null');
  });

  it('reads a term: title, definition first, human names, variants both ways, citation, dates', async () => {
    const { page, clean } = await open();
    await page.goto(file(`_catalogue/units/r-${rootTerm.id}.html`));
    expect(await page.title()).toBe(`${label(rootTerm)} — Units`);
    expect(await page.locator('h1 + p').textContent()).toBe(String(rootTerm.attributes.definition));
    const variants = page.locator('h2:text-is("Community variants") + ul li');
    const listed = variants.filter({ hasText: label(community) }).filter({ hasText: `in community ${communityName}` });
    await expect(listed.count()).resolves.toBeGreaterThan(0);
    // Collapsed, as the JSON is: opened, it shows each part and the whole citation.
    await page.locator('details#cite > summary').click();
    const cite = page.locator('details#cite > dl');
    expect(await cite.locator('dt').allTextContents()).toEqual(['Label', 'URI', 'Collection', 'Snapshot', 'Citation']);
    // The time comes from _catalogue/snapshot.js (record pages do not hold it), in the row and in the citation.
    for (const time of await cite.locator('time').all()) {
      expect(await time.getAttribute('datetime')).toBe('2023-11-14T22:13:20.000Z');
      expect(await time.textContent()).toBe('2023-11-14 22:13 UTC');
    }
    expect(await cite.locator('time').count()).toBe(2);
    await expect(cite.getByRole('button', { name: 'Copy citation' }).count()).resolves.toBe(1);

    // An attribute with a value is shown under its human name; an empty one is left out.
    const unitsList = (await readJson(out, `${ROOT_PATH}/units/index.html`)) as { data: Listed[] };
    const linked = unitsList.data.find(
      (u) => typeof u.attributes.provenance_uri === 'string' && u.attributes.provenance_uri,
    )!;
    const unlinked = unitsList.data.find((u) => !u.attributes.provenance_uri)!;
    for (const [unit, shown] of [
      [linked, true],
      [unlinked, false],
    ] as const) {
      await page.goto(file(`_catalogue/units/r-${unit.id}.html`));
      expect((await textsOf(page, 'main > dl dt')).includes('Provenance URI'), unit.id).toBe(shown);
    }

    await page.goto(file(`_catalogue/units-communities/r-${community.id}.html`));
    expect(await textsOf(page, 'p.variant')).toEqual([
      `Variant of ${label(rootTerm)} (Units) in community ${communityName}.`,
    ]);
    expect(await page.title()).toBe(`${label(community)} — Units: community variants`);

    // Collection pages: names from the data, a variant collection's Community and Root, no status where none is.
    await page.goto(file('_catalogue/units-communities/page-1.html'));
    expect(await textsOf(page, 'thead th')).toEqual([
      'Id',
      'Term or name',
      'Community',
      'Root',
      'Definition',
      'Provenance',
    ]);
    await page.goto(file('_catalogue/measuredquantityunits/page-1.html'));
    expect(await textsOf(page, 'h1')).toEqual(['Measured quantity units']);
    await page.goto(front);
    expect(await page.locator('time').textContent()).toBe('2023-11-14 22:13 UTC');
    // A collection without status says nothing of it.
    const communitiesCard = page
      .locator('ul.vocabularies > li')
      .filter({ has: page.getByRole('link', { name: 'Communities', exact: true }) });
    expect(await communitiesCard.locator('p').first().textContent()).toMatch(/^\d+ terms?$/);
    clean('null');
  });

  /** The records of every collection of the sample API's snapshot, as its complete collection files hold them. */
  async function everyRecord(): Promise<Listed[]> {
    const root = (await readJson(out, `${ROOT_PATH}/index.html`)) as { data: Record<string, string> };
    const lists = await Promise.all(
      Object.keys(root.data).map(async (name) => (await readJson(out, `${ROOT_PATH}/${name}/index.html`)) as any),
    );
    return lists.flatMap((list: { data: Listed[] }) => list.data);
  }

  /** Each `dl.relations` of the page: how many left edges its values have, values off their name's line, bullets. */
  const relationsLayout = (page: Page) =>
    page.evaluate<Array<{ lefts: number; offLine: number; bullets: number }>>(`[...document.querySelectorAll(
      'dl.relations')].map((dl) => {
        const dds = [...dl.querySelectorAll(':scope > dd')];
        const box = (e) => e.getBoundingClientRect();
        return {
          lefts: new Set(dds.map((dd) => Math.round(box(dd).left))).size,
          offLine: dds.filter((dd) => Math.abs(box(dd).top - box(dd.previousElementSibling).top) > 2).length,
          bullets: dl.querySelectorAll('li').length,
        };
      })`);

  it('reads relationships as aligned sentences, follows a links-only one both ways, counts who refers', async () => {
    const { page, clean } = await open();
    const records = await everyRecord();
    const find = (type: string, id: string) => records.find((r) => r.type === type && r.id === id)!;
    // A measured quantity unit: "Measured in: °C (Units)", "Measured quantity: … (Measured quantities)".
    const mqu = records.find((r) => r.type === 'MeasuredQuantityUnit' && r.relationships?.unit?.data)!;
    const unit = find(mqu.relationships!.unit!.data!.type, mqu.relationships!.unit!.data!.id);
    const quantity = find(
      mqu.relationships!.measured_quantity!.data!.type,
      mqu.relationships!.measured_quantity!.data!.id,
    );
    await page.goto(file(`_catalogue/measuredquantityunits/r-${mqu.id}.html`));
    const line = (section: string, name: string) =>
      page.locator(`h2:text-matches("^${section}") + dl.relations dt:text-is("${name}") + dd`);
    expect(await line('Relationships', 'Measured in').textContent()).toBe(`${label(unit)} (Units)`);
    expect(await line('Relationships', 'Measured quantity').textContent()).toBe(
      `${label(quantity)} (Measured quantities)`,
    );
    // The sample API gives successor with links only; its relationship document says there is none (data: null),
    // and a relationship that leads nowhere is left out.
    expect(await line('Relationships', 'Successor').count()).toBe(0);
    expect(await relationsLayout(page)).toEqual([{ lefts: 1, offLine: 0, bullets: 0 }]);

    // The root term: its variants under "Community variants", and "Referenced by N records" for the other records
    // of the source that point at it, by relationship: each record once on the page.
    const pointsHere = (rel: { data?: { type: string; id: string } | null }) =>
      [rel.data ?? []].flat().some((t) => t?.type === rootTerm.type && t.id === rootTerm.id);
    const others = records.filter((r) =>
      Object.entries(r.relationships ?? {}).some(([name, rel]) => name !== 'root' && pointsHere(rel)),
    );
    expect(others.length).toBeGreaterThan(0);
    await page.goto(file(`_catalogue/units/r-${rootTerm.id}.html`));
    const count = others.length;
    expect(await page.locator('h2#referenced-by').textContent()).toBe(
      `Referenced by ${count} ${count === 1 ? 'record' : 'records'}`,
    );
    const variants = records.filter((r) => r.relationships?.root && pointsHere(r.relationships.root));
    expect(variants.length).toBeGreaterThan(0);
    expect(await page.locator('h2:text-is("Community variants") + ul a').allTextContents()).toEqual(
      variants.map(label),
    );
    expect(await line('Referenced by', 'Root of').count()).toBe(0);
    for (const layout of await relationsLayout(page)) expect(layout).toEqual({ lefts: 1, offLine: 0, bullets: 0 });
    clean('null');

    // A successor given with links only (record 1 of the large source): the page names its target and links it.
    await page.goto(pathToFileURL(path.join(bigOut, '_catalogue/units/r-1.html')).href);
    const successor = line('Relationships', 'Successor');
    expect(await successor.textContent()).toBe('term-0002 (Units)');
    await successor.getByRole('link').click();
    expect(await heading(page)).toBe('term-0002');
    // And the successor's page says what it replaced.
    expect(await page.locator('h2#referenced-by').textContent()).toBe('Referenced by 1 record');
    const replaced = line('Referenced by', 'Successor of');
    expect(await replaced.textContent()).toBe('term-0001 (Units)');
    await replaced.getByRole('link').click();
    expect(await heading(page)).toBe('term-0001');
    // Through serve the pages are the same files: the link leads there from its origin too.
    const bigServed = await startServe({ dir: bigOut, port: 0 });
    try {
      await page.goto(`${bigServed.origin}/_catalogue/units/r-1.html`);
      await successor.getByRole('link').click();
      expect(await heading(page)).toBe('term-0002');
      expect(new URL(page.url()).origin).toBe(bigServed.origin);
    } finally {
      await bigServed.close();
    }
  });

  it("links the front page's validation summary to the report's findings, by rule, capped, escaped", async () => {
    const source = await startFindingsSource(NOT_NUMERIC);
    const findingsOut = path.join(suiteRoot, 'findings');
    try {
      await crawlForTest(`${source.url}/api/`, findingsOut);
    } finally {
      await source.close();
    }
    const { page } = await open();
    await page.goto(pathToFileURL(path.join(findingsOut, 'index.html')).href);
    await page.locator('dt:text-is("Validation") + dd').getByRole('link').click();
    expect(await heading(page)).toBe('Validation findings');
    // Each rule in the index table, its counts from what the source served (the document's id `one` too).
    const ruleRow = (rule: string) => page.locator('table.rules tr').filter({ hasText: rule });
    expect(await ruleRow('resource.id').locator('td').allTextContents()).toEqual([
      'A resource id is numeric text (spec 2.1) resource.id',
      '0',
      String(NOT_NUMERIC + 1),
    ]);
    expect(await ruleRow('record.self').locator('td').allTextContents()).toEqual([
      "A resource's links.self names its own collection and id record.self",
      String(NOT_NUMERIC + 1),
      '0',
    ]);
    // A rule's section lists 1,000 findings, as the report does, and says how many more it only counts.
    await ruleRow('resource.id').getByRole('link').click();
    const section = page.locator('h2:has(code:text-is("resource.id"))');
    const table = page.locator('h2:has(code:text-is("resource.id")) + p + .table-wrap table.findings');
    expect(await table.locator('tbody tr').count()).toBe(1000);
    expect(await page.locator('h2:has(code:text-is("resource.id")) + p').textContent()).toContain(
      `${NOT_NUMERIC + 1 - 1000} more are only counted`,
    );
    await expect(section.isVisible()).resolves.toBe(true);
    // The hostile id is text in its message.
    const hostile = table.locator('td:nth-child(4)').filter({ hasText: 'onerror' });
    expect(await hostile.textContent()).toBe(`Unit ${HOSTILE_ID}: the id is not numeric text as spec 2.1 describes.`);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate<unknown>('window.pwned')).toBeUndefined();
    // A finding on a record's own document links to the record's page.
    const onRecord = 'h2:has(code:text-is("record.id")) + p + .table-wrap td:nth-child(2) a';
    expect(await page.locator(onRecord).textContent()).toBe(`${source.url}/api/units/1/`);
    await page.locator(onRecord).click();
    expect(await heading(page)).toBe('term one');

    // Through serve the pages are the same files: the links from the front page to the findings and on to the
    // record lead there from its origin too.
    const served = await startServe({ dir: findingsOut, port: 0 });
    try {
      await page.goto(`${served.origin}/index.html`);
      await page.locator('dt:text-is("Validation") + dd').getByRole('link').click();
      expect(await heading(page)).toBe('Validation findings');
      await page.locator(onRecord).click();
      expect(await heading(page)).toBe('term one');
      expect(new URL(page.url()).origin).toBe(served.origin);
    } finally {
      await served.close();
    }
  });

  /** The links of the page whose `::before` or `::after` adds text (an address printed after the link, say). */
  const decoratedLinks = (page: Page) =>
    page.evaluate<string[]>(`[...document.querySelectorAll('a')]
      .filter((a) => ['::before', '::after'].some((p) => !['none', 'normal'].includes(getComputedStyle(a, p).content)))
      .map((a) => a.getAttribute('href'))`);

  it('prints a record with its source and snapshot date, a search with its results, each address once', async () => {
    const { page, clean } = await open({});
    // A record whose provenance URI is a link whose text is its address.
    const withUri = (await everyRecord()).find(
      (r) => r.type === 'Unit' && typeof r.attributes.provenance_uri === 'string' && r.attributes.provenance_uri,
    )!;
    const address = String(withUri.attributes.provenance_uri);
    await page.goto(file(`_catalogue/units/r-${withUri.id}.html`));
    await page.emulateMedia({ media: 'print' });
    const printed = page.locator('p.printed');
    await expect(printed.isVisible()).resolves.toBe(true);
    expect(await printed.textContent()).toBe(
      `From a snapshot of ${api.rootUrl} taken 2023-11-14 22:13 UTC, made with cv-snapshot.`,
    );
    await expect(page.locator('header.site').isVisible()).resolves.toBe(false);
    expect(await decoratedLinks(page)).toEqual([]);
    const text = await page.evaluate<string>('document.body.innerText');
    expect(text.split(address).length - 1).toBe(1);
    // On screen the line is not there: the header and the citation say it.
    await page.emulateMedia({ media: 'screen' });
    await expect(printed.isVisible()).resolves.toBe(false);

    // A printed search: its query (the header with the box is not printed) and its results.
    const term = label(rootTerm);
    await page.goto(`${front}?q=${encodeURIComponent(term)}`);
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#search-printed').textContent()).toBe(`Search results for \u201c${term}\u201d`);
    await expect(page.locator('#search-printed').isVisible()).resolves.toBe(true);
    const results = page.locator('#results li');
    await expect(results.first().isVisible()).resolves.toBe(true);
    expect(await results.locator('a').allTextContents()).toContain(term);
    expect(await decoratedLinks(page)).toEqual([]);
    clean('null');
  });

  it('shows the names a user gave (--names) in place of the derived ones, each API name once', async () => {
    const namedOut = path.join(suiteRoot, 'named');
    const names = { collections: { units: 'Units of measurement' }, fields: { provenance_uri: 'Provenance link' } };
    await addCatalogue({ input: out, out: namedOut, names });
    const { page, clean } = await open();
    const at = (rel: string) => pathToFileURL(path.join(namedOut, rel)).href;
    await page.goto(at('index.html'));
    const card = page
      .locator('ul.vocabularies > li')
      .filter({ has: page.getByRole('link', { name: 'Units of measurement', exact: true }) });
    // The community variants of units are named after the user's name of units.
    await card.getByRole('link', { name: /community variants$/ }).click();
    expect(await heading(page)).toBe('Units of measurement: community variants');

    await page.goto(at(`_catalogue/units/r-${rootTerm.id}.html`));
    expect(await page.title()).toBe(`${label(rootTerm)} — Units of measurement`);
    // A field the user named shows its API name beside it, on a unit that has a value for it.
    const unitsList = (await readJson(out, `${ROOT_PATH}/units/index.html`)) as { data: Listed[] };
    const linked = unitsList.data.find(
      (u) => typeof u.attributes.provenance_uri === 'string' && u.attributes.provenance_uri,
    )!;
    await page.goto(at(`_catalogue/units/r-${linked.id}.html`));
    const field = page.locator('main > dl dt').filter({ hasText: 'Provenance link' });
    expect(await field.textContent()).toBe('Provenance link provenance_uri');
    expect(await page.locator('main > dl dt code.api-name').allTextContents()).toEqual(['provenance_uri']);
    // A field nobody named keeps its derived name.
    const other = Object.keys(linked.attributes).find(
      (name) =>
        !['term', 'definition', 'status', 'provenance_uri'].includes(name) &&
        /^[a-z]+(_[a-z]+)*$/.test(name) &&
        !/(^|_)(uri|url|id|doi)(_|$)/.test(name) &&
        typeof linked.attributes[name] === 'string' &&
        linked.attributes[name] !== '',
    )!;
    const derived = other.charAt(0).toUpperCase() + other.slice(1).replace(/_/g, ' ');
    expect(await page.locator('main > dl dt').allTextContents()).toContain(derived);

    await page.goto(`${at('index.html')}?q=${encodeURIComponent(label(rootTerm))}`);
    const result = page.locator('#results li').filter({ hasText: ' · Units of measurement · ' });
    expect(await result.getByRole('link').allTextContents()).toContain(label(rootTerm));
    clean('null');
  });

  it("lists a collection's terms by first letter, accents folded, over the whole collection", async () => {
    const { page, clean } = await open();
    await page.goto(pathToFileURL(path.join(bigOut, '_catalogue/units/page-3.html')).href);
    const letters = page.getByRole('navigation', { name: 'Terms by first letter' });
    expect(await letters.getByRole('link').allTextContents()).toEqual(['A', 'T', 'U', 'W', '#', 'All']);
    await letters.getByRole('link', { name: 'A', exact: true }).click();
    const labels = page.locator('table.records tbody td:nth-child(2) a');
    // The page script redraws the table after the click: waited for, however loaded the machine.
    await expect.poll(() => labels.allTextContents()).toEqual(['Åland Islands', 'Ångström']);
    expect(new URL(page.url()).searchParams.get('letter')).toBe('A');
    await letters.getByRole('link', { name: 'All' }).click();
    await expect.poll(() => labels.count()).toBe(500); // page 1 as it was built
    clean('null');
  });

  it('on a phone, stacks table rows and breaks no short word or badge', async () => {
    const { page } = await open({ viewport: PHONE });
    for (const url of [
      front,
      file('_catalogue/actioncategories/page-1.html'),
      file('_catalogue/units-communities/page-1.html'),
      file(`_catalogue/units/r-${rootTerm.id}.html`),
      pathToFileURL(path.join(bigOut, '_catalogue/units/page-1.html')).href,
    ]) {
      await page.goto(url);
      // An inline element whose one word is split over two lines has two boxes; a block one (a grid item, a badge)
      // is taller than a line.
      const broken = await page.evaluate<string[]>(`[...document.querySelectorAll('a, code, .badge')]
        .filter((e) => {
          const text = e.textContent.trim();
          if (/\\s/.test(text) || text.length > 30) return false;
          const tall = e.getBoundingClientRect().height > 1.5 * parseFloat(getComputedStyle(e).lineHeight);
          return e.getClientRects().length > 1 || tall;
        })
        .map((e) => e.textContent)`);
      expect(broken, url).toEqual([]);
      // Every table's rows are stacked: each cell as wide as its row, nothing to scroll sideways.
      const layout = await page.evaluate<{ narrow: number; scrolls: number }>(`(() => {
        // A cell with nothing in it is left out of its card.
        const cells = [...document.querySelectorAll('tbody td')].filter((td) => td.getClientRects().length > 0);
        const width = (e) => e.getBoundingClientRect().width;
        const narrow = cells.filter((td) => width(td) < 0.9 * width(td.parentElement));
        const scrolls = [...document.querySelectorAll('.table-wrap')].filter((w) => w.scrollWidth > w.clientWidth);
        return { narrow: narrow.length, scrolls: scrolls.length };
      })()`);
      expect(layout, url).toEqual({ narrow: 0, scrolls: 0 });
    }
  });

  /** One page of each kind; the front page with search results shown, a collection page with its tools. */
  const pagesToCheck = () => [
    ['front page', `${pathToFileURL(path.join(out, 'index.html')).href}?q=a`],
    ['collection page', pathToFileURL(path.join(out, '_catalogue/units/page-1.html')).href],
    ['record page', pathToFileURL(path.join(out, `_catalogue/units/r-${rootTerm.id}.html`)).href],
    ['variant page', pathToFileURL(path.join(out, `_catalogue/units-communities/r-${community.id}.html`)).href],
    ['variant collection', pathToFileURL(path.join(out, '_catalogue/units-communities/page-1.html')).href],
    ['long record', pathToFileURL(path.join(bigOut, '_catalogue/units/r-8.html')).href],
    ['findings page', pathToFileURL(path.join(bigOut, '_catalogue/findings.html')).href],
  ];

  it('fits a phone screen: no page is wider than the screen', async () => {
    const { page } = await open({ viewport: PHONE });
    const large = ['large collection page', pathToFileURL(path.join(bigOut, '_catalogue/units/page-1.html')).href];
    for (const [name, url] of [...pagesToCheck(), large]) {
      await page.goto(url!);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(width, name).toBeLessThanOrEqual(PHONE.width);
    }
  });

  // One test per page, colour scheme and width, each with room for axe-core on a machine whose cores are shared; a
  // page's checks follow one another, so that it is loaded once for all of them.
  const desktop = { width: 1280, height: 800 };
  const checkedPages = [
    'front page',
    'collection page',
    'record page',
    'variant page',
    'variant collection',
    'findings page',
  ];
  for (const name of checkedPages) {
    for (const [colorScheme, viewport] of [
      ['light', desktop],
      ['dark', desktop],
      ['light', PHONE],
    ] as const) {
      it(
        `has no serious or critical accessibility violation (axe-core): ${name}, ${colorScheme}, ${viewport.width}px`,
        async () => {
          const url = pagesToCheck().find(([page]) => page === name)![1]!;
          const page = await checked.open(url, colorScheme, viewport);
          expect(await seriousViolations(page)).toEqual([]);
        },
        AXE_TIMEOUT_MS,
      );
    }
  }
});
