/**
 * What the catalogue shows is the record it names, whatever the source serves: the JSON of a record is shown in its
 * page and never linked as a stored `index.html` (which a plain host or the disk opens as an HTML page); lists with
 * small JSON:API mistakes are shown as far as they can be, at crawl time and by the `catalogue` command; page names
 * never collide (ids `a.b` and the hashed name of `a.b`, two types with one id, names differing only in case), and
 * `verify` checks that each record page is its record's; a record's URI is its own `links.self`.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addCatalogue } from '../../src/pipeline/add-catalogue.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { listFiles, readJson } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { copySnapshot, rewriteFile } from '../helpers/tiny-vocabulary.js';
import { crawlForTest } from '../helpers/crawl.js';
import { unescapeHtml } from '../helpers/html-text.js';

const heading = (html: string) => unescapeHtml(/<h1>([^<]*)<\/h1>/.exec(html)?.[1] ?? '');

/**
 * A source whose collections are given as `lists` (name → list entries built from the base URL); each entry that is
 * an object with a string id also answers at `<collection>/<id>/` (or at its `links.self`, when it gives one).
 */
async function startListSource(lists: Record<string, (base: string) => unknown>): Promise<TestServer> {
  return startServer((req, res) => {
    const base = `http://${req.headers.host}/api/`;
    const url = `http://${req.headers.host}${req.url ?? ''}`;
    if (url === base) {
      return sendJson(res, 200, { data: Object.fromEntries(Object.keys(lists).map((c) => [c, `${base}${c}/`])) });
    }
    for (const [collection, list] of Object.entries(lists)) {
      const data = list(base);
      if (url === `${base}${collection}/`) return sendJson(res, 200, { links: { next: null }, data });
      for (const entry of Array.isArray(data) ? (data as unknown[]) : [data]) {
        const { id, links } = (entry ?? {}) as { id?: unknown; links?: { self?: unknown } | null };
        const self = typeof links?.self === 'string' ? links.self : `${base}${collection}/${String(id)}/`;
        if (url === self) return sendJson(res, 200, { data: entry });
      }
    }
    sendJson(res, 404, { errors: [{ status: '404' }] });
  });
}

async function crawl(source: TestServer, catalogue: 'html' | 'none' = 'html'): Promise<string> {
  const out = path.join(await tempDir(), 'out');
  // One recorded time for every crawl, so that two crawls of one source give the same pages.
  await crawlForTest(`${source.url}/api/`, out, { catalogue });
  return out;
}

/** The rows of a collection page: [id, href, label]. */
async function rows(out: string, collection: string): Promise<Array<[string, string, string]>> {
  const html = await readFile(path.join(out, '_catalogue', collection, 'page-1.html'), 'utf8');
  return [...html.matchAll(/<tr><td>([^<]*)<\/td><td><a href="([^"]*)">([^<]*)<\/a>/g)].map(([, id, href, label]) => [
    unescapeHtml(id!),
    href!,
    unescapeHtml(label!),
  ]);
}

describe('the catalogue shows the record it names', () => {
  it("shows a record's JSON in its page as text, never linking a stored index.html", async () => {
    const hostile = `<script>document.title='PWNED'</script><img src=x onerror="window.pwned=1">`;
    const source = await startListSource({
      units: (base) => [{ type: 'Unit', id: '1', attributes: { term: hostile }, links: { self: `${base}units/1/` } }],
    });
    try {
      const out = await crawl(source);
      const page = await readFile(path.join(out, '_catalogue/units/r-1.html'), 'utf8');
      // No link from any catalogue page into the API tree: every local href and src stays in the catalogue.
      for (const file of (await listFiles(out)).filter((f) => f === 'index.html' || f.startsWith('_catalogue/'))) {
        if (!file.endsWith('.html')) continue;
        const html = await readFile(path.join(out, file), 'utf8');
        for (const [, target] of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
          if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue;
          const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target!));
          expect(resolved === 'index.html' || resolved.startsWith('_catalogue/'), `${file} → ${target}`).toBe(true);
        }
      }
      // The record as its stored list gives it, as text in a <pre>, its markup escaped; its document's file named.
      const pre = /<pre class="json">([^<]*)<\/pre>/.exec(page);
      expect(pre).not.toBeNull();
      const list = (await readJson(out, 'api/units/index.html')) as { data: unknown[] };
      expect(JSON.parse(unescapeHtml(pre![1]!))).toEqual(list.data[0]);
      expect(page).toContain('its own document is <code>api/units/1/index.html</code>');
      expect(page).not.toContain('<img');
      const own = /<script src="\.\.\/(catalogue|snapshot)\.js"><\/script>/g;
      expect(page.replace(own, '')).not.toContain('<script');
    } finally {
      await source.close();
    }
  });

  it('renders lists with small JSON:API mistakes, at crawl time and by the catalogue command', async () => {
    const source = await startListSource({
      units: () => [
        null,
        'a string',
        42,
        ['an', 'array'],
        { type: 'Unit', id: '1', attributes: { term: 'one' }, relationships: { root: null, broader: 'x' } },
        { type: 'Unit', id: '2', attributes: null, relationships: null, links: null, meta: null },
        { type: 'Unit', id: 3, attributes: { term: 'three' }, relationships: { root: { data: [null, 5, 'x'] } } },
        { type: 'Unit', id: '4', attributes: ['not', 'an', 'object'], relationships: ['no'], links: 'no' },
        { type: 'Unit', id: '5', attributes: { term: 'five' }, relationships: { root: { data: { type: 'Unit' } } } },
        { type: null, id: '6' },
        { type: 'Unit', id: '7', attributes: { term: 'seven' }, links: { self: null } },
        { type: 'Unit', id: '8', attributes: { term: 'eight' }, relationships: { root: { data: null, links: null } } },
        { type: 'Unit', id: '9', attributes: { term: 'nine', status: 7 }, links: { self: 'not a url' } },
      ],
      // One object where a list is expected.
      single: (base) => ({ type: 'Unit', id: '10', attributes: { term: 'ten' }, links: { self: `${base}single/10/` } }),
    });
    try {
      const out = await crawl(source);
      expect(await rows(out, 'units')).toEqual([
        ['1', 'r-1.html', 'one'],
        ['2', 'r-2.html', '2'],
        ['3', 'r-3.html', 'three'],
        ['4', 'r-4.html', '4'],
        ['5', 'r-5.html', 'five'],
        ['7', 'r-7.html', 'seven'],
        ['8', 'r-8.html', 'eight'],
        ['9', 'r-9.html', 'nine'],
      ]);
      const units = await readFile(path.join(out, '_catalogue/units/page-1.html'), 'utf8');
      expect(units).toContain('5 entries of its lists are not a record (no type or id) and not shown');
      // One object where a list is expected is no list: no records, as the crawl counted them and as export and diff
      // read them (docs/snapshot-format.md#records).
      expect(await rows(out, 'single')).toEqual([]);
      expect(await readFile(path.join(out, '_catalogue/single/page-1.html'), 'utf8')).toContain('0 records.');
      const one = await readFile(path.join(out, '_catalogue/units/r-1.html'), 'utf8');
      expect(one).toContain('<dt>Root</dt><dd><span class="muted">not a relationship:</span> <code>null</code></dd>');
      expect((await verifySnapshot(out)).problems).toEqual([]);

      // The catalogue command builds the same pages from a snapshot made without them.
      const bare = await crawl(source, 'none');
      const rebuilt = path.join(await tempDir(), 'rebuilt');
      await addCatalogue({ input: bare, out: rebuilt });
      for (const file of [
        '_catalogue/units/page-1.html',
        '_catalogue/units/r-3.html',
        '_catalogue/single/page-1.html',
      ]) {
        expect(await readFile(path.join(rebuilt, file), 'utf8'), file).toBe(
          await readFile(path.join(out, file), 'utf8'),
        );
      }
    } finally {
      await source.close();
    }
  });

  it('gives every record its own page: hashed names, two types with one id, names differing in case', async () => {
    const hashed = `x-${createHash('sha256').update('a.b').digest('hex').slice(0, 20)}`;
    const entry = (type: string, id: string, term: string) => ({ type, id, attributes: { term } });
    const source = await startListSource({
      units: () => [
        entry('Unit', 'a.b', 'dotted'),
        entry('Unit', hashed, 'looks hashed'),
        entry('Unit', '7', 'unit seven'),
        entry('Thing', '7', 'thing seven'),
        entry('Unit', 'Abc', 'upper'),
        entry('Unit', 'abc', 'lower'),
      ],
    });
    try {
      const out = await crawl(source);
      const listed = await rows(out, 'units');
      expect(listed.map(([id, , label]) => [id, label])).toEqual([
        ['a.b', 'dotted'],
        [hashed, 'looks hashed'],
        ['7', 'unit seven'],
        ['7', 'thing seven'],
        ['Abc', 'upper'],
        ['abc', 'lower'],
      ]);
      // Each row leads to its own page, which is that record's; no two pages share a name, in any case.
      const pages = listed.map(([, href]) => `_catalogue/units/${href}`);
      expect(new Set(pages.map((p) => p.toLowerCase())).size).toBe(listed.length);
      for (const [[, , label], page] of listed.map((row, i) => [row, pages[i]!] as const)) {
        expect(heading(await readFile(path.join(out, page), 'utf8')), page).toBe(label);
      }
      expect((await verifySnapshot(out)).problems).toEqual([]);
    } finally {
      await source.close();
    }
  });

  it("verify says when a record page is another record's", async () => {
    const source = await startListSource({
      units: () => [1, 2, 3].map((i) => ({ type: 'Unit', id: String(i), attributes: { term: `term ${i}` } })),
    });
    try {
      const out = await crawl(source);
      const copy = await copySnapshot(out, path.join(await tempDir(), 'copy'));
      // The page of record 3 is overwritten with record 2's, and SHA256SUMS agrees: what a name collision did.
      await rewriteFile(
        copy,
        '_catalogue/units/r-3.html',
        await readFile(path.join(out, '_catalogue/units/r-2.html')),
        true,
      );
      const { problems } = await verifySnapshot(copy);
      expect(problems).toEqual([
        expect.stringMatching(/^_catalogue\/units\/r-3\.html is the page of Unit "2" of units, whose page has another/),
      ]);
    } finally {
      await source.close();
    }
  });

  it('shows a record listed in two collections with its own links.self, and its stored JSON', async () => {
    const record = (base: string) => ({
      type: 'Unit',
      id: '1',
      attributes: { term: 'shared' },
      links: { self: `${base}units/1/` },
    });
    const source = await startListSource({ units: (base) => [record(base)], more: (base) => [record(base)] });
    try {
      const out = await crawl(source);
      // Its page is in the first collection by name, `more`; its URI is the one the source gives it.
      const page = await readFile(path.join(out, '_catalogue/more/r-1.html'), 'utf8');
      expect(page).toContain(`<code class="uri">${source.url}/api/units/1/</code>`);
      expect(page).not.toContain(`${source.url}/api/more/1/`);
      expect(existsSync(path.join(out, 'api/more/1/index.html'))).toBe(false);
      const pre = /<pre class="json">([^<]*)<\/pre>/.exec(page);
      const list = (await readJson(out, 'api/more/index.html')) as { data: unknown[] };
      expect(JSON.parse(unescapeHtml(pre![1]!))).toEqual(list.data[0]);
      expect(page).toContain('its own document is <code>api/units/1/index.html</code>');
    } finally {
      await source.close();
    }
  });
});
