/**
 * The catalogue for people: built from what the snapshot holds, every link resolves to a file of the tree, source
 * text shows as text, the same snapshot gives the same bytes, verify checks it, and --catalogue none leaves it out.
 */
import { existsSync } from 'node:fs';
import vm from 'node:vm';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fold } from '../../src/catalogue/search.js';
import { startServe } from '../../src/serve/index.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { sendJson, startServer } from '../helpers/http-server.js';
import { startFindingsSource } from '../helpers/findings-source.js';
import { listFiles, readJson } from '../helpers/snapshot.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';
import {
  dataAnswer,
  linksOnly,
  recordDocument,
  records,
  startTinySource,
  type TinyRecord,
} from '../helpers/tiny-source.js';
import { copySnapshot } from '../helpers/tiny-vocabulary.js';
import { crawlForTest } from '../helpers/crawl.js';

const ROOT_PATH = 'sms/cv/api/v1';

interface Listed {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data?: unknown }>;
}

/** The hrefs and srcs of a page that are not outbound, resolved against the page's folder. */
function localTargets(file: string, html: string): string[] {
  return [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)]
    .map(([, href]) => href!)
    .filter((href) => !/^[a-z]+:/i.test(href) && !href.startsWith('#'))
    .map((href) => href.replace(/\?.*$/, ''))
    .map((href) => path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(href))));
}

describe('catalogue', () => {
  let api: SampleApi;
  let out: string;
  let files: string[];
  let remove: () => Promise<void>;

  beforeAll(async () => {
    api = await startSampleApi({ records: 5, pageSize: 2, seed: 11 });
    const suite = await suiteDir();
    remove = suite.remove;
    out = path.join(suite.dir, 'out');
    await crawlForTest(api.rootUrl, out);
    files = await listFiles(out);
  });
  afterAll(async () => {
    await api.close();
    await remove();
  });

  it('has a front page listing every vocabulary with its record and status counts, variants under it', async () => {
    const root = (await readJson(out, `${ROOT_PATH}/index.html`)) as { data: Record<string, string> };
    const front = await readFile(path.join(out, 'index.html'), 'utf8');
    expect(front).toContain(api.rootUrl);
    expect(front).toContain('2023-11-14T22:13:20.000Z');
    for (const collection of Object.keys(root.data)) {
      const complete = (await readJson(out, `${ROOT_PATH}/${collection}/index.html`)) as { data: Listed[] };
      const accepted = complete.data.filter((r) => r.attributes.status === 'ACCEPTED').length;
      const pending = complete.data.filter((r) => r.attributes.status === 'PENDING').length;
      const terms = `${complete.data.length} ${complete.data.length === 1 ? 'term' : 'terms'}`;
      if (collection.endsWith('-communities')) {
        // A collection of community variants is reached from its vocabulary's card, not listed as one of its own.
        expect(front).toContain(`<a href="_catalogue/${collection}/page-1.html">${complete.data.length} community`);
        expect(front).not.toMatch(new RegExp(`<h3><a href="_catalogue/${collection}/page-1\\.html">`));
        continue;
      }
      // The statuses the records have, the most frequent first; nothing for a collection without status.
      const statuses = [
        [accepted, 'accepted'],
        [pending, 'pending'],
      ]
        .filter(([n]) => Number(n) > 0)
        .sort(([a, x], [b, y]) => Number(b) - Number(a) || String(x).localeCompare(String(y)))
        .map(([n, word]) => ` · ${n} ${word}`)
        .join('');
      expect(front).toMatch(
        new RegExp(`<h3><a href="_catalogue/${collection}/page-1\\.html">[^<]+</a></h3><p>${terms}${statuses}</p>`),
      );
    }
  });

  it('has a page for every record the collections hold, linked from its collection page', async () => {
    const root = (await readJson(out, `${ROOT_PATH}/index.html`)) as { data: Record<string, string> };
    let records = 0;
    for (const collection of Object.keys(root.data)) {
      const complete = (await readJson(out, `${ROOT_PATH}/${collection}/index.html`)) as { data: Listed[] };
      const listing = await readFile(path.join(out, '_catalogue', collection, 'page-1.html'), 'utf8');
      for (const record of complete.data) {
        const page = `_catalogue/${collection}/r-${record.id}.html`;
        expect(files, page).toContain(page);
        expect(listing).toContain(`href="r-${record.id}.html"`);
        records++;
      }
    }
    expect(records).toBeGreaterThan(50);
  });

  it('links a record to the records it points at, and back', async () => {
    const communities = (await readJson(out, `${ROOT_PATH}/units-communities/index.html`)) as { data: Listed[] };
    const variant = communities.data.find((r) => r.relationships?.root?.data)!;
    const rootTerm = variant.relationships!.root!.data as { id: string };
    const variantPage = await readFile(path.join(out, `_catalogue/units-communities/r-${variant.id}.html`), 'utf8');
    expect(variantPage).toContain(`href="../../_catalogue/units/r-${rootTerm.id}.html"`);
    const rootPage = await readFile(path.join(out, `_catalogue/units/r-${rootTerm.id}.html`), 'utf8');
    expect(rootPage).toContain(`href="../../_catalogue/units-communities/r-${variant.id}.html"`);
    // Its JSON is in the page, as text; no link hands the stored index.html to the browser.
    expect(rootPage).toContain('<pre class="json">{\n  "type": "Unit",');
    expect(rootPage).not.toContain(`href="../../${ROOT_PATH}/`);
    expect(rootPage).toContain(`${api.rootUrl}units/${rootTerm.id}/`);
  });

  it('links only to files of the tree, and they are all in SHA256SUMS', async () => {
    const sums = await readFile(path.join(out, '_cv-snapshot', 'SHA256SUMS'), 'utf8');
    const pages = files.filter((f) => f === 'index.html' || f.startsWith('_catalogue/'));
    expect(pages.length).toBeGreaterThan(50);
    for (const page of pages) {
      expect(sums, page).toContain(`  ${page}\n`);
      if (!page.endsWith('.html')) continue;
      for (const target of localTargets(page, await readFile(path.join(out, page), 'utf8'))) {
        expect(files, `${page} → ${target}`).toContain(target);
      }
    }
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });

  it('is the same bytes for the same snapshot', async () => {
    const again = path.join(await tempDir(), 'again');
    await crawlForTest(api.rootUrl, again);
    for (const page of files.filter((f) => f === 'index.html' || f.startsWith('_catalogue/'))) {
      expect(await readFile(path.join(again, page), 'utf8'), page).toBe(await readFile(path.join(out, page), 'utf8'));
    }
  });

  it('verify names a catalogue link that leads nowhere', async () => {
    const copy = await copySnapshot(out, path.join(await tempDir(), 'copy'));
    const gone = '_catalogue/units/r-3.html';
    await rm(path.join(copy, gone));
    const sumsFile = path.join(copy, '_cv-snapshot', 'SHA256SUMS');
    const sums = await readFile(sumsFile, 'utf8');
    await writeFile(sumsFile, sums.replace(new RegExp(`^[0-9a-f]{64}  ${gone}\\n`, 'm'), ''));
    const { problems } = await verifySnapshot(copy);
    expect(problems).toContainEqual(expect.stringMatching(/^_catalogue\/units\/page-1\.html links to r-3\.html/));
  });

  it('is answered by serve with the media types a browser needs, the API still as JSON', async () => {
    const serve = await startServe({ dir: out, port: 0 });
    try {
      const front = await fetch(`${serve.origin}/`);
      expect(front.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await front.text()).toBe(await readFile(path.join(out, 'index.html'), 'utf8'));
      const style = await fetch(`${serve.origin}/_catalogue/style.css`);
      expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
      const record = await fetch(`${serve.origin}/_catalogue/units/page-1.html`);
      expect(record.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const api = await fetch(serve.url);
      expect(api.headers.get('content-type')).toBe('application/vnd.api+json');
    } finally {
      await serve.close();
    }
  });

  it('serve answers a browser on an API URL with its page, and JSON:API clients with JSON as before', async () => {
    const serve = await startServe({ dir: out, port: 0 });
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const pages: Array<[string, string]> = [
      [serve.url, 'index.html'],
      [`${serve.url}units/`, '_catalogue/units/page-1.html'],
      [`${serve.url}units/3/`, '_catalogue/units/r-3.html'],
    ];
    try {
      for (const [url, page] of pages) {
        const html = await fetch(url, { headers: { Accept: browser } });
        expect(html.status, url).toBe(200);
        expect(html.headers.get('content-type'), url).toBe('text/html; charset=utf-8');
        // fetch asks for gzip and Brotli: the page is large enough to be compressed, so Accept-Encoding is named too.
        expect(html.headers.get('vary'), url).toBe('Accept, Accept-Encoding');
        // The page's file, with a <base> naming its place in the tree, so that its relative links lead on.
        const file = await readFile(path.join(out, page), 'utf8');
        expect(await html.text(), url).toBe(file.replace('<head>', `<head>\n<base href="/${page}">`));
        for (const accept of ['application/vnd.api+json', '*/*', null, 'text/html;q=0.5, application/vnd.api+json']) {
          const json = await fetch(url, accept === null ? {} : { headers: { Accept: accept } });
          expect(json.headers.get('content-type'), `${url} ${accept}`).toBe('application/vnd.api+json');
          expect(json.headers.get('vary'), `${url} ${accept}`).toMatch(/^Accept(, Accept-Encoding)?$/);
          const text = await json.text();
          expect(() => JSON.parse(text) as unknown, `${url} ${accept}`).not.toThrow();
        }
      }
      const relationship = await fetch(`${serve.url}units/3/relationships/successor`, { headers: { Accept: browser } });
      expect(relationship.headers.get('content-type')).toBe('application/vnd.api+json');
    } finally {
      await serve.close();
    }
  });

  it('searches every collection in the page, from scripts the front page loads, ranking the term first', async () => {
    const front = await readFile(path.join(out, 'index.html'), 'utf8');
    const scripts = [...front.matchAll(/<script src="([^"]+)"><\/script>/g)].map(([, src]) => src!);
    expect(scripts).toEqual(['_catalogue/search-index.js', '_catalogue/search.js']);
    expect(front).toContain('<input type="search" id="q" name="q"');
    expect(front).toContain('<noscript><p>Search needs JavaScript');
    const context: { window: Record<string, unknown> } = { window: {} };
    for (const src of scripts) vm.runInNewContext(await readFile(path.join(out, src), 'utf8'), context);
    type Entry = [string, string, string, string, string];
    const index = context.window.cvSearchIndex as Entry[];
    type Found = { total: number; results: Entry[]; matches: number[] };
    const cvSearch = context.window.cvSearch as (
      index: Entry[],
      query: string,
      limit?: number,
      within?: number[],
    ) => Found;
    const search = (index: Entry[], query: string) => cvSearch(index, query).results;
    const records = (await readJson(out, `${ROOT_PATH}/units/index.html`)) as { data: Listed[] };
    const unit = records.data.find((r) => typeof r.attributes.term === 'string' && r.attributes.term.length > 2)!;
    const term = unit.attributes.term as string;
    const results = search(index, term);
    expect(results[0]![0]).toBe(`_catalogue/units/r-${unit.id}.html`);
    expect(results[0]!.slice(1, 4)).toEqual([term, unit.attributes.status, 'units']);
    const definition = (unit.attributes.definition as string | null) ?? '';
    if (definition.split(' ')[0]!.length > 3) {
      expect(search(index, definition.split(' ')[0]!).map((e) => e[0])).toContain(results[0]![0]);
    }
    expect(search(index, 'zzzz-no-such-term')).toEqual([]);
    expect(search(index, '   ')).toEqual([]);
    // The best few, kept while scanning, are the head of the full ranking; a longer query searched within the
    // shorter one's matches finds what a search of the whole index finds.
    const full = cvSearch(index, 'a');
    expect(full.total).toBe(full.results.length);
    expect(cvSearch(index, 'a', 7).results).toEqual(full.results.slice(0, 7));
    expect(cvSearch(index, 'a', 7).total).toBe(full.total);
    const narrowed = cvSearch(index, 'a m', undefined, full.matches);
    expect(narrowed).toEqual(cvSearch(index, 'a m'));
    expect(narrowed.total).toBeGreaterThan(0);
    const recordPages = files.filter((f) => /^_catalogue\/[^/]+\/r-/.test(f));
    expect(index.map((e) => e[0]).sort()).toEqual(recordPages.sort());

    // The page folds text as the index was folded when it was built.
    const cvFold = context.window.cvFold as (text: string) => string;
    // ASCII text takes a shorter way in fold(): it must agree all the same.
    for (const text of [
      'Ångström',
      'µmol/m²·s',
      'Straße',
      'ÆØœ',
      'İstanbul',
      'ﬁne',
      'Łódź',
      'Þórr',
      'Kelvin PER Second',
      'CO2 [ppm]',
    ]) {
      expect(cvFold(text), text).toBe(fold(text));
    }
    expect(fold('Ångström µmol ÆØ')).toBe('angstrom umol aeo');
    // Ties go to the label closest to the query, then label order; not to the index's order.
    const entry = (label: string, id: string): Entry =>
      [`r-${id}.html`, label, '', 'units', fold(label), id, '', ''] as never;
    const ties = [entry('Kelvin scale', '1'), entry('kelvins', '2'), entry('Kelvin', '3'), entry('Kelvia', '4')];
    expect(search(ties, 'kel').map((e) => e[1])).toEqual(['Kelvia', 'Kelvin', 'kelvins', 'Kelvin scale']);
    expect(search(ties, 'kelvin').map((e) => e[1])).toEqual(['Kelvin', 'kelvins', 'Kelvin scale']);
    // An id equal to the query first; an address goes to its record alone.
    expect(search(ties, '2').map((e) => e[1])).toEqual(['kelvins']);
    expect(search(ties, 'https://host/api/units/4/?format=api').map((e) => e[1])).toEqual(['Kelvia']);
  });

  it('--catalogue none leaves it out and says so in the manifest', async () => {
    const bare = path.join(await tempDir(), 'bare');
    await crawlForTest(api.rootUrl, bare, { catalogue: 'none' });
    expect(existsSync(path.join(bare, 'index.html'))).toBe(false);
    expect(existsSync(path.join(bare, '_catalogue'))).toBe(false);
    const manifest = (await readJson(bare, '_cv-snapshot/manifest.json')) as { options: { catalogue: string } };
    expect(manifest.options.catalogue).toBe('none');
  });
});

describe('catalogue of hostile and unusual sources', () => {
  it('shows source text as text, never as markup', async () => {
    const hostile = '<script>window.hacked=1</script><img src=x onerror="alert(1)">&amp;';
    const source = await startTinySource({ term: hostile });
    try {
      const out = path.join(await tempDir(), 'out');
      await crawlForTest(source.root, out);
      for (const page of ['_catalogue/units/r-1.html', '_catalogue/units/page-1.html']) {
        const html = await readFile(path.join(out, page), 'utf8');
        const ownScripts = /<script src="(rows|\.\.\/catalogue|\.\.\/snapshot)\.js"><\/script>/g;
        expect(html.replace(ownScripts, ''), page).not.toContain('<script');
        expect(html, page).not.toContain('<img');
        expect(html, page).toContain('&lt;script&gt;window.hacked=1&lt;/script&gt;&lt;img src=x onerror=&quot;');
        expect(html, page).toContain('&amp;amp;');
      }
    } finally {
      await source.close();
    }
  });

  it('links a relationship the lists give as links only both ways, from its stored relationship document', async () => {
    // Unit 1 is replaced by unit 2; unit 2 by nothing.
    const units = records(2).map((unit) => ({ ...unit, relationships: linksOnly('successor') }));
    const server = await startTinySource({
      collections: { units },
      answers: {
        'units/1/relationships/successor': dataAnswer({ type: 'Unit', id: '2' }),
        'units/1/successor/': (res, base) => sendJson(res, 200, recordDocument(base, 'units', units[1]!)),
        'units/2/relationships/successor': dataAnswer(null),
        'units/2/successor/': dataAnswer(null),
      },
    });
    try {
      const out = path.join(await tempDir(), 'out');
      await crawlForTest(`${server.url}/api/`, out);
      const first = await readFile(path.join(out, '_catalogue/units/r-1.html'), 'utf8');
      // A sentence naming where it leads: the target's label, linked, and its collection's name.
      expect(first).toContain(
        '<dt>Successor</dt><dd><a href="../../_catalogue/units/r-2.html">term 2</a> ' +
          '<span class="muted">(Units)</span></dd>',
      );
      const second = await readFile(path.join(out, '_catalogue/units/r-2.html'), 'utf8');
      // A successor that leads nowhere is left out of the page.
      expect(second).not.toContain('<dt>Successor</dt>');
      // The successor's page says what it replaced.
      expect(second).toContain(
        '<dt>Successor of</dt><dd><a href="../../_catalogue/units/r-1.html">term 1</a> ' +
          '<span class="muted">(Units)</span></dd>',
      );
    } finally {
      await server.close();
    }
  });

  it("writes the report's findings as a page, in SHA256SUMS, whose record links verify checks", async () => {
    // Record 1's own document gives the id "one": a record.id finding on the record's URL.
    const server = await startFindingsSource();
    try {
      const out = path.join(await tempDir(), 'out');
      await crawlForTest(`${server.url}/api/`, out);
      const html = await readFile(path.join(out, '_catalogue/findings.html'), 'utf8');
      expect(html).toContain(`<a href="units/r-1.html"><code>${server.url}/api/units/1/</code></a>`);
      expect(await readFile(path.join(out, 'index.html'), 'utf8')).toMatch(
        /<dt>Validation<\/dt><dd><a href="_catalogue\/findings\.html">\d+ errors?, \d+ warnings?<\/a><\/dd>/,
      );
      expect(await readFile(path.join(out, '_cv-snapshot/SHA256SUMS'), 'utf8')).toContain(
        '  _catalogue/findings.html\n',
      );
      expect((await verifySnapshot(out)).problems).toEqual([]);
      // A record page that is gone is a link of the findings page that leads nowhere.
      await rm(path.join(out, '_catalogue/units/r-1.html'));
      const sumsFile = path.join(out, '_cv-snapshot', 'SHA256SUMS');
      const sums = await readFile(sumsFile, 'utf8');
      await writeFile(sumsFile, sums.replace(/^[0-9a-f]{64} {2}_catalogue\/units\/r-1\.html\n/m, ''));
      expect((await verifySnapshot(out)).problems).toContainEqual(
        expect.stringMatching(/^_catalogue\/findings\.html links to units\/r-1\.html/),
      );
    } finally {
      await server.close();
    }
  });

  it('gives a record listed in two collections one page, and links both listings to it', async () => {
    const shared: TinyRecord = { id: '1', term: 'shared', type: 'Unit', self: 'units/1/' };
    const server = await startTinySource({ collections: { units: [shared], more: [shared] } });
    try {
      const out = path.join(await tempDir(), 'out');
      await crawlForTest(`${server.url}/api/`, out);
      // Its page is in the first collection by name.
      expect(existsSync(path.join(out, '_catalogue/more/r-1.html'))).toBe(true);
      expect(existsSync(path.join(out, '_catalogue/units/r-1.html'))).toBe(false);
      const units = await readFile(path.join(out, '_catalogue/units/page-1.html'), 'utf8');
      expect(units).toContain('href="../more/r-1.html"');
      // And one search entry, pointing at that page.
      const index = await readFile(path.join(out, '_catalogue/search-index.js'), 'utf8');
      expect(index.match(/"_catalogue\/[^"]*r-1\.html"/g)).toEqual(['"_catalogue/more/r-1.html"']);
      expect((await verifySnapshot(out)).problems).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('is left out for a source served at its host root, whose root document is index.html', async () => {
    const server = await startServer((req, res) => {
      const base = `http://${req.headers.host}/`;
      const record = { type: 'Unit', id: '1', attributes: { term: 'one' }, links: { self: `${base}units/1/` } };
      if (req.url === '/') return sendJson(res, 200, { data: { units: `${base}units/` } });
      if (req.url === '/units/') return sendJson(res, 200, { links: { next: null }, data: [record] });
      if (req.url === '/units/1/') return sendJson(res, 200, { data: record });
      sendJson(res, 404, { errors: [{ status: '404' }] });
    });
    try {
      const out = path.join(await tempDir(), 'out');
      await crawlForTest(`${server.url}/`, out);
      expect(existsSync(path.join(out, '_catalogue'))).toBe(false);
      expect(JSON.parse(await readFile(path.join(out, 'index.html'), 'utf8'))).toMatchObject({ data: {} });
      expect((await verifySnapshot(out)).problems).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
