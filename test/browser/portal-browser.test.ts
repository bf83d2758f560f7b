/**
 * The catalogue as people and linked-data tools meet it, in the suite's headless Chromium (scripts/browser.mjs): a
 * front page led by the vocabularies, search results as a view of their own (facets in the address, highlights,
 * typos), record pages that show what exists, findings and tables that fit a screen, the site's own title, and
 * `serve` answering SKOS and an HTML 404 page. The SKOS is read back with n3 and jsonld.
 */
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { releaseBrowser, testBrowser, TestPages } from '../helpers/browser.js';
import { addCatalogue } from '../../src/pipeline/add-catalogue.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { startServe, type ServeHandle } from '../../src/serve/index.js';
import { AXE_TIMEOUT_MS, axePage, seriousViolations } from '../helpers/axe.js';
import { crawlForTest } from '../helpers/crawl.js';
import { crawlReleases, RELEASES } from '../helpers/removed-history.js';
import { startFindingsSource } from '../helpers/findings-source.js';
import { readJson } from '../helpers/snapshot.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { objectsBy, parseJsonLd, parseTurtle, quadKey, RDF_TYPE, SKOS } from '../export/rdf-check.js';

const ROOT_PATH = 'sms/cv/api/v1';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SITE = { title: 'Sensor vocabularies', introduction: 'The terms our sensor registry uses, offline.' };

interface Listed {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data?: { type: string; id: string } | null }>;
  links?: { self?: string };
}

/** GET `url` with exactly `headers` (node:http adds Host and Connection, nothing else). */
function get(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? '', body }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('the catalogue as a vocabulary portal', () => {
  let browser: Browser;
  let api: SampleApi;
  let out: string;
  let named: string;
  let served: ServeHandle;
  let remove: () => Promise<void>;
  let suiteRoot: string;
  let units: Listed[];
  let collections: string[];

  beforeAll(async () => {
    const suite = await suiteDir();
    remove = suite.remove;
    suiteRoot = suite.dir;
    [browser, api] = await Promise.all([testBrowser(), startSampleApi({ records: 6, pageSize: 3, seed: 5 })]);
    out = path.join(suite.dir, 'out');
    named = path.join(suite.dir, 'named');
    await crawlForTest(api.rootUrl, out);
    // The same snapshot with the site's own title: its catalogue built again, not the source crawled again.
    await addCatalogue({ input: out, out: named, names: { site: SITE } });
    served = await startServe({ dir: out, port: 0 });
    units = ((await readJson(out, `${ROOT_PATH}/units/index.html`)) as { data: Listed[] }).data;
    collections = Object.keys(((await readJson(out, `${ROOT_PATH}/index.html`)) as { data: object }).data);
  });
  afterAll(async () => {
    await releaseBrowser(browser);
    await Promise.all([served?.close(), api?.close()]);
    await remove?.();
  });

  const file = (dir: string, rel: string) => pathToFileURL(path.join(dir, rel)).href;
  const label = (record: Listed) => String(record.attributes.term ?? record.attributes.name);
  /** A unit's IRI in the SKOS: its URL at the source. */
  const iriOf = (unit: Listed) => new URL(`units/${unit.id}/`, api.rootUrl).href;

  /** The pages the tests share at a desktop's and a phone's width, or a context of a test's own. */
  const pages = new TestPages(() => browser, { desktop: DESKTOP, phone: PHONE });
  afterEach(() => pages.endTest());

  /**
   * A page that records every answer that is not a success and every request to another origin, until the test ends:
   * the shared page at a desktop's or a phone's width, or a context of its own with `options`.
   */
  async function open(options: 'desktop' | 'phone' | BrowserContextOptions) {
    const page = await pages.page(options);
    const failures: string[] = [];
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('requestfailed', (request) => {
      if (request.failure()?.errorText !== 'net::ERR_ABORTED') failures.push(request.url());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.url()}: ${response.status()}`);
    });
    page.on('pageerror', (error) => failures.push(error.message));
    const clean = (origin: string) => {
      expect(failures).toEqual([]);
      expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    };
    return { page, clean, failures };
  }

  it('leads with the vocabularies on the first screen, variants reached from theirs, provenance aside', async () => {
    const { page, clean } = await open('desktop');
    await page.goto(file(out, 'index.html'));
    const cards = page.locator('ul.vocabularies > li');
    // Every collection but the community variants' has a card; the variants are reached from their vocabulary.
    const variantCollections = collections.filter((name) => name.endsWith('-communities'));
    expect(await cards.count()).toBe(collections.length - variantCollections.length);
    const unitsCard = cards.filter({ has: page.getByRole('link', { name: 'Units', exact: true }) });
    const accepted = units.filter((u) => u.attributes.status === 'ACCEPTED').length;
    expect(await unitsCard.locator('p').first().textContent()).toContain(
      `${units.length} terms · ${accepted} accepted`,
    );
    const first = await cards.first().boundingBox();
    expect(first!.y + first!.height).toBeLessThan(DESKTOP.height);
    const variants = ((await readJson(out, `${ROOT_PATH}/units-communities/index.html`)) as { data: Listed[] }).data;
    const variantsLink = `${variants.length} community variants`;
    await unitsCard.getByRole('link', { name: variantsLink }).click();
    expect(await page.locator('h1').textContent()).toBe('Units: community variants');
    await page.goBack();
    // The provenance is an aside after the vocabularies.
    const aside = page.locator('aside.about');
    expect(await aside.locator('dt').allTextContents()).toEqual([
      'Source',
      'Taken',
      'Made by',
      'Validation',
      'Changes',
    ]);
    expect((await aside.boundingBox())!.y).toBeGreaterThan((await cards.last().boundingBox())!.y);
    expect(await page.locator('link[rel="icon"]').count()).toBe(1);
    clean('null');

    // Through serve the page is the same file: what differs is the origin. It loads, its links lead on, and nothing
    // it asks for fails, the icon included (a file of the snapshot, so no favicon.ico 404).
    const viaServe = await open('desktop');
    expect((await viaServe.page.goto(`${served.origin}/index.html`))!.status()).toBe(200);
    await viaServe.page
      .locator('ul.vocabularies > li')
      .filter({ has: viaServe.page.getByRole('link', { name: 'Units', exact: true }) })
      .getByRole('link', { name: variantsLink })
      .click();
    expect(await viaServe.page.locator('h1').textContent()).toBe('Units: community variants');
    viaServe.clean(served.origin);
  });

  it("shows the site's title and introduction given with --names, on every page", async () => {
    const { page } = await open('desktop');
    await page.goto(file(named, 'index.html'));
    expect(await page.locator('h1').textContent()).toBe(SITE.title);
    expect(await page.title()).toBe(SITE.title);
    expect(await page.locator('p.intro').textContent()).toBe(SITE.introduction);
    await page.goto(file(named, `_catalogue/units/r-${units[0]!.id}.html`));
    expect(await page.locator('header .brand').textContent()).toBe(SITE.title);
  });

  it('shows search results as a view of their own: clear, facets kept in the address, highlights', async () => {
    const { page, clean } = await open('desktop');
    const front = file(out, 'index.html');
    await page.goto(`${front}?q=a`);
    expect(await page.locator('#results-title').textContent()).toBe('Results for \u201ca\u201d');
    await expect(page.locator('#front-content').isVisible()).resolves.toBe(false);
    // The collection facet counts the matches of each collection; choosing one narrows them and goes in the address.
    const total = Number(/^(\d+) records match/.exec((await page.locator('#search-status').textContent())!)![1]);
    const option = page
      .locator('#facets fieldset')
      .first()
      .locator('label')
      .filter({ hasText: /^Units\d+$/ });
    const count = Number(await option.locator('.count').textContent());
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(total);
    await option.locator('input').check();
    expect(await page.locator('#search-status').textContent()).toMatch(new RegExp(`^${count} records? match`));
    for (const where of await page.locator('#results li > span.muted').allTextContents()) {
      expect(where).toMatch(/^ · Units( · |$)/);
    }
    expect(new URL(page.url()).searchParams.get('collection')).toBe('units');
    // The status facet (its least frequent status), kept too; a reload shows the same results.
    const statusOption = page.locator('#facets fieldset').nth(1).locator('input').last();
    const status = await statusOption.inputValue();
    expect(status).not.toBe('');
    await statusOption.check();
    const narrowed = await page.locator('#results li > a').allTextContents();
    expect(narrowed.length).toBeGreaterThan(0);
    expect(new URL(page.url()).searchParams.get('status')).toBe(status);
    await page.reload();
    expect(await page.locator('#results li > a').allTextContents()).toEqual(narrowed);
    for (const where of await page.locator('#results li > span.muted').allTextContents()) {
      expect(where).toBe(` · Units · ${status}`);
    }
    // The matched text is marked.
    const part = units.map((u) => /[A-Za-z]{3}/.exec(label(u))?.[0]).find((p) => p !== undefined)!;
    await page.goto(`${front}?q=${encodeURIComponent(part)}`);
    const marks = await page.locator('#results li > a mark').allTextContents();
    expect(marks.length).toBeGreaterThan(0);
    for (const mark of marks) expect(mark.toLowerCase()).toBe(part.toLowerCase());
    // "Clear the search" gives the front page back.
    await page.getByRole('link', { name: 'Clear the search' }).click();
    await expect(page.locator('#front-content').isVisible()).resolves.toBe(true);
    await expect(page.locator('#search-view').isVisible()).resolves.toBe(false);
    expect(new URL(page.url()).search).toBe('');
    clean('null');
  });

  it('finds a term with one or two letters wrong, offline, in the page', async () => {
    const { page, clean } = await open('desktop');
    const index = await readFile(path.join(out, '_catalogue', 'search-index.js'), 'utf8');
    const labels = [...index.matchAll(/^\["[^"]*","([^"]*)"/gm)].map((m) => m[1]!);
    const word = labels.find((l) => /^[A-Za-z]{7,}$/.test(l))!;
    expect(word).toBeDefined();
    // A letter changed, and then also two neighbours swapped.
    const once = `${word.slice(0, 2)}${word[2] === 'x' ? 'y' : 'x'}${word.slice(3)}`;
    const twice = `${once.slice(0, 4)}${once[5]}${once[4]}${once.slice(6)}`;
    for (const typo of [once, twice]) {
      await page.goto(`${file(out, 'index.html')}?q=${encodeURIComponent(typo)}`);
      expect(await page.locator('#search-status').textContent(), typo).toContain(
        `Did you mean \u201c${word.toLowerCase()}\u201d?`,
      );
      expect(await page.locator('#results li > a').allTextContents(), typo).toContain(word);
    }
    clean('null');
  });

  it('reads a record page: no placeholders, status once, the term as heading only, types in words', async () => {
    const { page } = await open('phone');
    const unit = units.find((u) => Object.values(u.attributes).some((v) => v === null || v === ''))!;
    await page.goto(file(out, `_catalogue/units/r-${unit.id}.html`));
    const main = (await page.locator('main').innerText()).split('\nJSON\n')[0]!;
    expect(main).not.toContain('—');
    expect(main).not.toMatch(/\bnone\b/);
    const rows = await page.locator('main > dl dt').allTextContents();
    expect(rows).not.toContain('Status');
    expect(rows).not.toContain('Term');
    expect(rows).not.toContain('JSON');
    for (const [name, v] of Object.entries(unit.attributes)) {
      if (v === null || v === '') expect(rows, name).not.toContain(name.charAt(0).toUpperCase() + name.slice(1));
    }
    expect(await page.locator('main .badge').count()).toBe(unit.attributes.status ? 1 : 0);
    expect(await page.locator('p.kind').textContent()).toContain(`Unit ${unit.id} in Units`);
    // A type of two words reads as words.
    const category = ((await readJson(out, `${ROOT_PATH}/actioncategories/index.html`)) as { data: Listed[] }).data[0]!;
    await page.goto(file(out, `_catalogue/actioncategories/r-${category.id}.html`));
    expect(await page.locator('p.kind').textContent()).toContain(`Action category ${category.id} in`);
  });

  it('fits a record in one and a half phone screens, from the disk and through serve', async () => {
    // A collection of each kind: a vocabulary with statuses and community variants (units), one with narrower terms
    // (action categories), community variants (units-communities) and the communities; every record of each.
    const kinds = ['units', 'actioncategories', 'units-communities', 'communities'];
    const limit = 1.5 * PHONE.height;
    // The heading and the height read in the page's own script, once it has loaded: a locator would cost each of the
    // many pages Playwright's script of its own.
    const shown = "[document.querySelector('h1')?.textContent, document.scrollingElement.scrollHeight]";
    const { page, clean } = await open('phone');
    for (const collection of kinds) {
      const records = ((await readJson(out, `${ROOT_PATH}/${collection}/index.html`)) as { data: Listed[] }).data;
      expect(records.length).toBeGreaterThan(0);
      for (const record of records) {
        await page.goto(file(out, `_catalogue/${collection}/r-${record.id}.html`));
        const [h1, pageHeight] = await page.evaluate<[string | undefined, number]>(shown);
        expect(h1).toBe(label(record));
        expect(pageHeight, `${collection} ${record.id}`).toBeLessThanOrEqual(limit);
      }
    }
    clean('null');
    // Through serve, at the record's own address.
    const { page: viaServe, clean: servedClean } = await open('phone');
    for (const collection of kinds) {
      const record = ((await readJson(out, `${ROOT_PATH}/${collection}/index.html`)) as { data: Listed[] }).data[0]!;
      expect((await viaServe.goto(`${served.url}${collection}/${record.id}/`))!.status()).toBe(200);
      const [h1, pageHeight] = await viaServe.evaluate<[string | undefined, number]>(shown);
      expect(h1).toBe(label(record));
      expect(pageHeight, collection).toBeLessThanOrEqual(limit);
    }
    servedClean(served.origin);
  });

  it(
    "answers an address two removed records had with the last one's page and 410, linking the other",
    async () => {
      const history = path.join(suiteRoot, 'history');
      await crawlReleases(history);
      const first = RELEASES[0]!.units!.find((r) => r.id === '7')!.term;
      const later = RELEASES[1]!.units!.find((r) => r.id === '7')!.term;
      const historyServed = await startServe({ dir: history, port: 0 });
      try {
        const { page, failures } = await open('phone');
        const address = `${historyServed.url}units/7/`;
        expect((await page.goto(address))!.status()).toBe(410);
        expect(await page.locator('h1').textContent()).toBe(later);
        expect(await seriousViolations(page), later).toEqual([]);
        await page.getByRole('link', { name: first, exact: true }).click();
        expect(await page.locator('h1').textContent()).toBe(first);
        expect(new URL(page.url()).pathname).toBe('/_catalogue/units/removed-7.html');
        // (axe-core checks a removed record's own page, light and dark at both widths, in changes-browser.test.ts.)
        // Nothing failed but the removed record's address, which is gone.
        expect(failures).toEqual([`${address}: 410`]);
      } finally {
        await historyServed.close();
      }
      // From the disk, dark: the Changes page links both, and each page the other.
      const { page, clean } = await open({ viewport: PHONE, colorScheme: 'dark' });
      await page.goto(file(history, '_catalogue/changes.html'));
      await page.locator('h2#earlier + ul').getByRole('link', { name: later, exact: true }).click();
      expect(await page.locator('h1').textContent()).toBe(later);
      await page.getByRole('link', { name: first, exact: true }).click();
      expect(await page.locator('h1').textContent()).toBe(first);
      await page.getByRole('link', { name: later, exact: true }).click();
      expect(await page.locator('h1').textContent()).toBe(later);
      clean('null');
      // axe-core asks for the style sheet again, which a page from the disk may refuse: after the check of requests.
      expect(await seriousViolations(page), `${later} dark`).toEqual([]);
    },
    AXE_TIMEOUT_MS,
  );

  it('browses the hierarchy: a tree on the collection page without the network, a path in the breadcrumb', async () => {
    const { page, clean } = await open('desktop');
    const categories = ((await readJson(out, `${ROOT_PATH}/actioncategories/index.html`)) as { data: Listed[] }).data;
    const types = ((await readJson(out, `${ROOT_PATH}/actiontypes/index.html`)) as { data: Listed[] }).data;
    const type = types.find((t) => t.relationships?.action_category?.data)!;
    const category = categories.find((c) => c.id === type.relationships!.action_category!.data!.id)!;
    await page.goto(file(out, '_catalogue/actioncategories/page-1.html'));
    const branch = page.locator('.tree > ul > li').filter({ has: page.getByRole('link', { name: label(category) }) });
    const child = branch.getByRole('link', { name: label(type), exact: true }).first();
    await expect(child.isVisible()).resolves.toBe(false);
    await branch.locator('summary').first().click();
    await child.click();
    expect(await page.locator('h1').textContent()).toBe(label(type));
    const crumbs = await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link').allTextContents();
    expect(crumbs).toEqual(['Catalogue', 'Action categories', label(category)]);
    await page
      .getByRole('navigation', { name: 'Breadcrumb' })
      .getByRole('link', { name: label(category) })
      .click();
    expect(await page.locator('h1').textContent()).toBe(label(category));
    // A root term's community variants, on one line in its branch, each named by its community.
    const variants = ((await readJson(out, `${ROOT_PATH}/units-communities/index.html`)) as { data: Listed[] }).data;
    const communities = ((await readJson(out, `${ROOT_PATH}/communities/index.html`)) as { data: Listed[] }).data;
    const variant = variants.find((v) => v.relationships?.root?.data && v.relationships.community?.data)!;
    const root = units.find((u) => u.id === variant.relationships!.root!.data!.id)!;
    const community = communities.find((c) => c.id === variant.relationships!.community!.data!.id)!;
    await page.goto(file(out, '_catalogue/units/page-1.html'));
    const rootBranch = page.locator('.tree > ul > li').filter({ has: page.getByRole('link', { name: label(root) }) });
    await rootBranch.locator('summary').first().click();
    const line = rootBranch.locator('li').filter({ hasText: /^Community variants: / });
    await line
      .getByRole('link', { name: label(community), exact: true })
      .first()
      .click();
    expect(await page.locator('h1').textContent()).toBe(label(variant));
    clean('null');
  });

  it('links SKOS Turtle and JSON-LD from record and collection pages, which hold the concept', async () => {
    const { page } = await open('desktop');
    const unit = units[0]!;
    await page.goto(file(out, `_catalogue/units/r-${unit.id}.html`));
    for (const [type, parse] of [
      ['text/turtle', parseTurtle],
      ['application/ld+json', parseJsonLd],
    ] as const) {
      const href = await page.locator(`link[rel="alternate"][type="${type}"]`).getAttribute('href');
      const shown = await page.locator(`main a[type="${type}"]`).getAttribute('href');
      expect(shown).toBe(href);
      const quads = await parse(await readFile(path.join(out, '_catalogue', 'units', href!), 'utf8'));
      const labels = objectsBy(quads, `${SKOS}prefLabel`).get(iriOf(unit));
      expect(
        labels?.map((l) => l.value),
        type,
      ).toEqual([label(unit)]);
    }
    await page.goto(file(out, '_catalogue/units/page-1.html'));
    expect(await page.locator('link[rel="alternate"]').count()).toBe(2);
  });

  it('serve answers SKOS to a linked-data client, JSON:API to the others, as the export maps it', async () => {
    const unit = units[1]!;
    const recordUrl = `${served.url}units/${unit.id}/`;
    const turtle = await get(recordUrl, { Accept: 'text/turtle' });
    expect(turtle.status).toBe(200);
    expect(turtle.type).toBe('text/turtle; charset=utf-8');
    const quads = parseTurtle(turtle.body);
    const iri = iriOf(unit);
    expect(
      objectsBy(quads, `${SKOS}prefLabel`)
        .get(iri)
        ?.map((l) => l.value),
    ).toEqual([label(unit)]);
    expect(new Set(quads.map((q) => q.subject.value))).toEqual(new Set([iri]));
    const ld = await get(recordUrl, { Accept: 'application/ld+json' });
    expect(ld.type).toBe('application/ld+json');
    expect(new Set((await parseJsonLd(ld.body)).map(quadKey))).toEqual(new Set(quads.map(quadKey)));
    // The collection: its scheme and every concept.
    const scheme = parseTurtle((await get(`${served.url}units/`, { Accept: 'text/turtle' })).body);
    const concepts = [...objectsBy(scheme, RDF_TYPE)].filter(([, types]) =>
      types.some((t) => t.value === `${SKOS}Concept`),
    );
    expect(concepts.map(([subject]) => subject).sort()).toEqual(units.map(iriOf).sort());
    // JSON:API clients and no Accept: the JSON as stored.
    for (const headers of [{}, { Accept: 'application/vnd.api+json' }, { Accept: '*/*' }] as Array<
      Record<string, string>
    >) {
      const json = await get(recordUrl, headers);
      expect(json.type).toBe('application/vnd.api+json');
      expect((JSON.parse(json.body) as { data: Listed }).data.id).toBe(unit.id);
    }
  });

  it('answers a browser on an unknown URL with a 404 page with the search box, a client with JSON:API', async () => {
    const { page, failures } = await open('desktop');
    const unknown = `${served.url}units/no-such-term/`;
    const response = await page.goto(unknown);
    expect(response!.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('No such page in this snapshot');
    await page.locator('header').getByLabel('Search terms').fill(label(units[0]!));
    await page.locator('header').getByLabel('Search terms').press('Enter');
    await page.waitForURL(/index\.html\?q=/);
    expect(await page.locator('#results li > a').allTextContents()).toContain(label(units[0]!));
    expect(failures.filter((f) => !f.startsWith(unknown))).toEqual([]);
    const client = await get(unknown, { Accept: 'application/vnd.api+json' });
    expect(client.status).toBe(404);
    expect((JSON.parse(client.body) as { errors: Array<{ status: string }> }).errors[0]!.status).toBe('404');
  });

  it('fits the findings table in 1280 px, rules in words with the code beside them', async () => {
    const source = await startFindingsSource(20);
    const findingsOut = path.join(suiteRoot, 'findings');
    try {
      await crawlForTest(`${source.url}/api/`, findingsOut);
    } finally {
      await source.close();
    }
    const { page } = await open('desktop');
    await page.goto(file(findingsOut, '_catalogue/findings.html'));
    const heading = page.locator('h2:has(code:text-is("resource.id"))');
    expect(await heading.textContent()).toBe('A resource id is numeric text (spec 2.1) resource.id');
    const overflow = await page.evaluate(
      '[...document.querySelectorAll(".table-wrap")].filter((w) => w.scrollWidth > w.clientWidth + 1).length',
    );
    expect(overflow).toBe(0);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(DESKTOP.width);
    // No message repeats its row's URL.
    for (const row of await page.locator('table.findings tbody tr').all()) {
      const url = await row.locator('td:nth-child(2)').textContent();
      expect(await row.locator('td:nth-child(4)').textContent()).not.toContain(url!);
    }
  });

  /** Pages of each kind, from the disk. */
  const kinds = () => [
    file(out, 'index.html'),
    `${file(out, 'index.html')}?q=a`,
    file(out, '_catalogue/units/page-1.html'),
    file(out, `_catalogue/units/r-${units[0]!.id}.html`),
    file(out, '_catalogue/findings.html'),
    file(out, '_catalogue/changes.html'),
    file(out, '_catalogue/not-found.html'),
  ];

  it('on a phone: no page scrolls sideways, the search button beside its box, no header row above cards', async () => {
    const { page } = await open('phone');
    // What each page shows, read in the page's own script once it has loaded: a locator would cost each page
    // Playwright's script of its own. An element that is not shown has no box (null), as boundingBox() says.
    type Box = { x: number; y: number; width: number; height: number } | null;
    const shown = `(() => {
      const boxes = (selector) => [...document.querySelectorAll(selector)]
        .map((e) => (e.getClientRects().length > 0 ? e.getBoundingClientRect().toJSON() : null));
      return {
        width: document.documentElement.scrollWidth,
        search: boxes('header #q'),
        submit: boxes('header button[type="submit"]'),
        // Only a collection's sort buttons may stay above its cards, as a row of buttons.
        heads: [...document.querySelectorAll('thead')]
          .filter((head) => !head.closest('table').classList.contains('sorting'))
          .map((head) => head.getBoundingClientRect().height),
      };
    })()`;
    for (const url of kinds()) {
      await page.goto(url);
      const { width, search, submit, heads } = await page.evaluate<{
        width: number;
        search: Box[];
        submit: Box[];
        heads: number[];
      }>(shown);
      expect(width, url).toBeLessThanOrEqual(PHONE.width);
      expect([search.length, submit.length], url).toEqual([1, 1]);
      const box = search[0]!;
      const button = submit[0]!;
      expect(Math.abs(box.y + box.height / 2 - (button.y + button.height / 2)), url).toBeLessThan(4);
      expect(button.x, url).toBeGreaterThan(box.x + box.width - 1);
      for (const height of heads) expect(height, url).toBeLessThanOrEqual(1);
    }
  });

  it(
    'has no serious or critical accessibility violation on the 404 page, light and dark',
    async () => {
      // (The front page with search results is checked in each theme and width by catalogue-browser.test.ts.)
      const checked = axePage(() => browser);
      try {
        for (const colorScheme of ['light', 'dark'] as const) {
          const page = await checked.open(file(out, '_catalogue/not-found.html'), colorScheme, DESKTOP);
          expect(await seriousViolations(page), colorScheme).toEqual([]);
        }
      } finally {
        await checked.close();
      }
    },
    AXE_TIMEOUT_MS,
  );
});
