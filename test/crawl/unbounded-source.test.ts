/**
 * A source that never ends is bounded by what each list's first page announced: a collection whose every page
 * announces one page more, and records that each link to a new one, stop with a `pagination.unbounded` finding that
 * names the list; the crawl fails unless --allow-partial, which publishes a partial snapshot naming what was left
 * out. A collection that really grew while it was crawled is fetched again and completed, as before.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UnboundedListError } from '../../src/util/errors.js';
import type * as Library from '../../src/index.js';
import { createSnapshot } from '../../src/pipeline/create-snapshot.js';
import { sendJson, serversClosedAfterEach } from '../helpers/http-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const serve = serversClosedAfterEach();
const DIST = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/index.js')).href;

const unit = (base: string, id: number, links: Record<string, unknown> = {}) => ({
  type: 'Unit',
  id: String(id),
  attributes: { term: `term ${id}` },
  relationships: links,
  links: { self: `${base}units/${id}/` },
});

/**
 * Page n of `units` lists record n and announces `pagesAt(n)` pages (and as many records), linking to page n + 1
 * while that is within them. Its own server: the builder's lists announce the pages they have.
 */
function pagedSource(pagesAt: (page: number) => number) {
  return serve((req, res) => {
    const base = `http://${req.headers.host}/api/`;
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/api/') return sendJson(res, 200, { data: { units: `${base}units/` } });
    const page = Number(url.searchParams.get('page[number]') ?? '1');
    const link = (n: number) => (n === 1 ? `${base}units/` : `${base}units/?page[number]=${n}`);
    if (url.pathname === '/api/units/') {
      const pages = pagesAt(page);
      return sendJson(res, 200, {
        links: { first: link(1), last: link(pages), next: page < pages ? link(page + 1) : null, prev: null },
        data: [unit(base, page)],
        meta: { pagination: { page, pages, count: pages } },
      });
    }
    const id = /^\/api\/units\/(\d+)\/$/.exec(url.pathname)?.[1];
    if (id === undefined) return sendJson(res, 404, { errors: [{ status: '404' }] });
    sendJson(res, 200, { data: unit(base, Number(id)) });
  });
}

const unitPages = (requests: string[]) =>
  requests.map(decodeURIComponent).filter((r) => r.startsWith('/api/units/?') || r === '/api/units/');

describe('a collection whose every page announces one page more', () => {
  it.each([0, 1])(
    'is held to the pages its first page announced, and the crawl fails naming it (%i workers)',
    async (workers) => {
      const server = await pagedSource((page) => page + 1);
      const out = path.join(await tempDir(), 'out');
      // Worker threads run the built library (dist/, which `npm test` builds first).
      const create = workers === 0 ? createSnapshot : ((await import(DIST)) as typeof Library).createSnapshot;
      const error = await create({ rootUrl: `${server.url}/api/`, out, retries: 0, workers }).catch((e: unknown) => e);
      expect(((error as Error).cause as Error).name).toBe(UnboundedListError.name);
      expect((error as Error).message).toContain(
        `Page 3 of units was not fetched: ${server.url}/api/units/?page[number]=2, which declares 3 pages, links to ` +
          'it, past the 2 pages the first page of units declares.',
      );
      expect((error as Error).message).toContain('--allow-partial');
      // Pages 1 and 2, fetched once and then again in each round that looks for a collection that shifted.
      expect(new Set(unitPages(server.requests))).toEqual(new Set(['/api/units/', '/api/units/?page[number]=2']));
      await expect(readFile(path.join(out, 'api/index.html'))).rejects.toThrow();
    },
  );

  it('with --allow-partial is published partial, the page left out named in the manifest and report', async () => {
    const server = await pagedSource((page) => page + 1);
    const out = path.join(await tempDir(), 'out');
    const root = `${server.url}/api/`;
    const result = await crawlForTest(root, out, { allowPartial: true });
    const manifest = JSON.parse(await readFile(path.join(out, '_cv-snapshot/manifest.json'), 'utf8')) as {
      partial: boolean;
      missing: string[];
    };
    expect(manifest.partial).toBe(true);
    expect(manifest.missing).toEqual([`${root}units/?page[number]=3`]);
    const held = result.report.findings.filter((f) => f.rule === 'pagination.unbounded');
    expect(held.map((f) => f.url)).toEqual([`${root}units/?page[number]=3`]);
    expect(held[0]!.message).toContain('the first page of units declares');
    expect(unitPages(server.requests).every((r) => !r.includes('=3'))).toBe(true);
  });
});

describe('a collection that grew while it was crawled', () => {
  it('is fetched again and completed: nothing held back once its first page announces the new page', async () => {
    let firstPages = 0;
    const server = await pagedSource((page) => {
      if (page !== 1) return 3;
      firstPages += 1;
      return firstPages === 1 ? 2 : 3;
    });
    const out = path.join(await tempDir(), 'out');
    const root = `${server.url}/api/`;
    const result = await crawlForTest(root, out);
    expect(result.report.findings.filter((f) => f.rule === 'pagination.unbounded')).toEqual([]);
    const page3 = JSON.parse(await readFile(path.join(out, 'api/units/page/3/index.html'), 'utf8')) as {
      data: Array<{ id: string }>;
    };
    expect(page3.data.map((r) => r.id)).toEqual(['3']);
  });
});

describe('records that each link to a new one', () => {
  it('stop at the count the first page announced, with some room for records it does not list', async () => {
    // Its own server: the builder serves the records it lists, and these are endless.
    const server = await serve((req, res) => {
      const base = `http://${req.headers.host}/api/`;
      if (req.url === '/api/') return sendJson(res, 200, { data: { units: `${base}units/` } });
      const successor = (id: number) => ({
        successor: { data: { type: 'Unit', id: String(id + 1) }, links: { related: `${base}units/${id + 1}/` } },
      });
      if (req.url === '/api/units/') {
        return sendJson(res, 200, {
          links: { first: `${base}units/`, last: `${base}units/`, next: null, prev: null },
          data: [unit(base, 1, successor(1))],
          meta: { pagination: { page: 1, pages: 1, count: 1 } },
        });
      }
      const id = Number(/^\/api\/units\/(\d+)\/$/.exec(req.url ?? '')?.[1]);
      if (!Number.isInteger(id)) return sendJson(res, 404, { errors: [{ status: '404' }] });
      sendJson(res, 200, { data: unit(base, id, successor(id)) });
    });
    const out = path.join(await tempDir(), 'out');
    const root = `${server.url}/api/`;
    const result = await crawlForTest(root, out, { allowPartial: true, maxDocuments: 5000 });
    const records = server.requests.filter((r) => /^\/api\/units\/\d+\/$/.test(r));
    // The one record counted, and the 100 more a collection may hold without listing them.
    expect(records).toHaveLength(101);
    const held = result.report.findings.filter((f) => f.rule === 'pagination.unbounded');
    expect(held.map((f) => f.url)).toEqual([`${root}units/102/`]);
    expect(held[0]!.message).toContain('found 101 records of units, where its first page counts 1.');
  });
});
