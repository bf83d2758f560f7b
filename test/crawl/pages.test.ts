/**
 * Page numbers and path spellings that a source links to: only a canonical whole number ≥ 1 is a
 * page; any other `page[number]` is fetched, reported and never stored on or merged into a page; two spellings of
 * one path are one URL, fetched once.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { closedAfterEach, sendJson, startServer } from '../helpers/http-server.js';
import { listFiles, readJson } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';
import { onePage, records, startTinySource } from '../helpers/tiny-source.js';

const tinySource = closedAfterEach(startTinySource);

/** Records of the three real pages. */
const PAGES: Record<string, number[]> = { '1': [1, 2], '2': [3, 4], '3': [5] };
/** page[number] spellings that are no page; the server answers each with a page of its own (ids from 900 up). */
const ODD = ['1.0', '+2', '%2B2', '01', '-1', '1e0', '2&page[number]=3', '2&page%5bnumber%5d=2'];

interface ListDocument {
  data: Array<{ id: string }>;
  links: Record<string, string | null>;
  meta: { pagination: { page: number; pages: number; count: number } };
}

function unit(base: string, id: string | number, extra: Record<string, unknown> = {}) {
  return { type: 'Unit', id: String(id), attributes: {}, ...extra, links: { self: `${base}units/${id}/` } };
}

/**
 * Three pages of units, linked with the odd spellings (and `0`) from page 1. A server that clamps: `0` answers
 * page 1, as a source seen in the wild did. The other odd spellings get pages of their own records, so that a file they
 * overwrote would show. Its own server: it answers each spelling of the query apart, which the builder's lists do not.
 */
function paginating(req: http.IncomingMessage, res: http.ServerResponse): void {
  const base = `http://${req.headers.host}/api/`;
  const url = new URL(req.url ?? '/', base);
  if (url.pathname === '/api/') return sendJson(res, 200, { data: { units: `${base}units/` } });
  if (url.pathname.startsWith('/api/units/') && url.pathname !== '/api/units/') {
    const id = decodeURIComponent(url.pathname.split('/')[3]!);
    // Record 1 names record 900 as its successor: a record that only the refused page `1.0` holds.
    const relationships = id === '1' ? { successor: { data: { type: 'Unit', id: '900' } } } : {};
    return sendJson(res, 200, { data: unit(base, id, { relationships }) });
  }
  if (url.pathname !== '/api/units/') return sendJson(res, 404, { errors: [{ status: '404' }] });
  const raw = url.search.slice(1);
  const given = url.searchParams.get('page[number]');
  const number = given === null || given === '0' ? '1' : given;
  const odd = ODD.findIndex((spelling) => [`page[number]=${spelling}`, `page%5Bnumber%5D=${spelling}`].includes(raw));
  const page = (n: number) => `${base}units/?page%5Bnumber%5D=${n}`;
  const current = Number(number);
  const links: Record<string, string | null> = {
    first: page(1),
    last: page(3),
    next: current < 3 ? page(current + 1) : null,
    prev: current > 1 ? page(current - 1) : null,
  };
  if (number === '1' && odd < 0) {
    ODD.concat('0').forEach((spelling, i) => (links[`odd${i}`] = `${base}units/?page[number]=${spelling}`));
  }
  // The odd pages' records have no links: they are to be found nowhere else.
  const ids = odd >= 0 ? [] : (PAGES[number] ?? []);
  const data = odd >= 0 ? [{ type: 'Unit', id: String(900 + odd), attributes: {} }] : ids.map((id) => unit(base, id));
  sendJson(res, 200, { links, data, meta: { pagination: { page: current, pages: 3, count: 5 } } });
}

describe('page numbers a source links to', () => {
  it('stores only canonical pages; 1.0, +2, 0, 01, -1, 1e0 and a repeated page[number] are reported', async () => {
    const server = await startServer(paginating);
    try {
      const out = path.join(await tempDir(), 'out');
      const result = await crawlForTest(`${server.url}/api/`, out);

      // Each odd spelling was fetched (it is a document of the source) and reported, naming its URL.
      const refused = result.report.findings.filter((f) => f.rule === 'layout.refused');
      const values = (search: string) => JSON.stringify(new URLSearchParams(search).getAll('page[number]'));
      const expected = ODD.concat('0').map((s) => values(`page[number]=${s}`));
      expect(refused.map((f) => values(new URL(f.url).search)).sort()).toEqual(expected.sort());
      for (const finding of refused) expect(finding.message).toMatch(/not a page number|page\[number\] more than once/);
      expect(server.requests.filter((r) => r.startsWith('/api/units/?')).length).toBe(ODD.length + 1 + 2);

      // The pages hold what the source's pages hold, and the complete collection every record once, in order.
      const stored = await listFiles(out);
      const pageFiles = [1, 2, 3].map((n) => `api/units/page/${n}/index.html`);
      expect(stored.filter((file) => file.includes('/page/'))).toEqual(pageFiles);
      for (const [n, ids] of Object.entries(PAGES)) {
        const document = (await readJson(out, `api/units/page/${n}/index.html`)) as ListDocument;
        expect(document.data.map((record) => record.id)).toEqual(ids.map(String));
      }
      const complete = (await readJson(out, 'api/units/index.html')) as ListDocument;
      expect(complete.data.map((record) => record.id)).toEqual(['1', '2', '3', '4', '5']);
      expect(complete.meta.pagination).toEqual({ page: 1, pages: 1, count: 5 });
      expect(result.collections.units).toEqual({ records: 5, pages: 3, documents: 8 });
      // No record of an odd page reached the tree, and links to them leave the mirror as source URLs.
      for (const file of stored) {
        expect(await readFile(path.join(out, file), 'utf8'), file).not.toMatch(/"id":"9\d\d","attributes"/);
      }
      const page1 = (await readJson(out, 'api/units/page/1/index.html')) as ListDocument;
      expect(page1.links.odd0).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/units\/\?page\[number\]=1\.0$/);

      // A record seen only in a document that was not stored is not in the snapshot: its reference is dangling.
      const dangling = result.report.findings.filter((f) => f.rule === 'reference.target').map((f) => f.url);
      expect(dangling).toEqual([`${server.url}/api/units/1/`]);
      // verify finds the tree as the report describes it: the refused URLs are the report's errors, nothing else.
      const verified = await verifySnapshot(out);
      expect(verified.problems).toEqual([]);
      expect(verified.recordedErrors).toBeGreaterThanOrEqual(ODD.length + 1);
    } finally {
      await server.close();
    }
  });
});

describe('path spellings a source links to', () => {
  it('fetches /units/%41/ and /units/A/ once, as one URL, and stores one file', async () => {
    const spellings = ['%41', 'A', '%7e', '~', '%7E', '%21', '!', '[x]', '%5bx%5d'];
    const server = await tinySource({
      answers: {
        'units/': (res, base) => {
          const self = (spelling: string) => `${base}units/${spelling}/`;
          const data = spellings.map((spelling, i) => ({ type: 'Unit', id: `${i}`, links: { self: self(spelling) } }));
          sendJson(res, 200, onePage(base, 'units', data));
        },
      },
      // Each spelling answers a document that names the spelling it was asked with.
      otherwise: (res, _base, req) => {
        const self = `http://${req.headers.host}${req.url}`;
        sendJson(res, 200, { data: { type: 'Unit', id: '1', attributes: { asked: req.url }, links: { self } } });
      },
    });
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(server.root, out);
    const asked = server.requests.filter((r) => r !== '/api/' && r !== '/api/units/').sort();
    expect(asked).toEqual(['/api/units/!/', '/api/units/%5Bx%5D/', '/api/units/A/', '/api/units/~/']);
    const stored = (await listFiles(out)).filter((file) => /^api\/units\/[^/]+\/index\.html$/.test(file));
    expect(stored).toEqual(['!', 'A', '[x]', '~'].map((name) => `api/units/${name}/index.html`));
    expect(result.report.findings.filter((f) => f.rule.startsWith('layout.'))).toEqual([]);
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });
});

describe('two names a file system folds into one file', () => {
  it('keeps the first file and reports the second URL (layout.collision) in a fresh crawl', async () => {
    const out = path.join(await tempDir(), 'out');
    // What a case-insensitive file system does with units/A/ and units/a/: the second name finds the first's file.
    // Simulated on any file system: the server plants that file in the staging tree before it answers units/a/.
    const planted = path.join(`${out}.staging`, 'tree', 'api', 'units', 'a', 'index.html');
    const server = await tinySource({
      collections: { units: [{ id: 'a', term: 'a' }] },
      answers: {
        'units/a/': async (res, base) => {
          await mkdir(path.dirname(planted), { recursive: true });
          await writeFile(planted, '{"written":"first"}');
          sendJson(res, 200, { data: unit(base, 'a') });
        },
      },
    });
    const result = await crawlForTest(server.root, out);
    const collisions = result.report.findings.filter((f) => f.rule === 'layout.collision');
    expect(collisions.map((f) => f.url)).toEqual([`${server.url}/api/units/a/`]);
    expect(collisions[0]!.message).toContain('api/units/a/index.html cannot be written: another document of');
    expect(await readFile(path.join(out, 'api', 'units', 'a', 'index.html'), 'utf8')).toBe('{"written":"first"}');
  });
});

describe('the order of fetching', () => {
  it('fetches the pages of a list before the records its earlier pages listed', async () => {
    // One request at a time: two collections of three pages, each page naming the next.
    const source = await tinySource({ collections: { units: records(6), things: records(6) }, pageSize: 2 });
    await crawlForTest(source.root, path.join(await tempDir(), 'ordered'), { concurrency: 1, catalogue: 'none' });
    const paths = source.requests.map((url) => url.split('?')[0]!);
    const firstRecord = paths.findIndex((p) => /^\/api\/[a-z-]+\/\d+\/$/.test(p));
    const isListPage = (p: string) => /^\/api\/[a-z-]+\/$/.test(p);
    const lastPage = paths.findLastIndex(isListPage);
    // Every list page is fetched before the first record's document.
    expect(paths.filter(isListPage).length).toBeGreaterThanOrEqual(2 * 3);
    expect(lastPage).toBeLessThan(firstRecord);
  });
});
