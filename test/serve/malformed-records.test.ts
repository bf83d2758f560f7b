/**
 * Invalid JSON:API is mirrored and reported, and every command still works on it. A source lists
 * records with small mistakes (a null entry, a resource that is a string, number or list, `attributes`,
 * `relationships`, `links` or `meta` null or of the wrong kind, a relationship that is null, a string, a number,
 * relationship data entries that are null or not identifiers, ids that are numbers): the crawl stores them as they
 * came and reports each, verify agrees, and `serve` answers every query on the collection, never with 500. The
 * crawl's catalogue stage never ends it with an unexpected failure.
 */
import type http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../src/diff/index.js';
import { startServe, type ServeHandle } from '../../src/serve/index.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { runMain } from '../helpers/cli.js';
import { getJson, readJson } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function source(handler: http.RequestListener): Promise<TestServer> {
  const server = await startServer(handler);
  closers.push(() => server.close());
  return server;
}

function unit(base: string, id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'Unit',
    id,
    attributes: { term: `term ${id}` },
    relationships: { sites: { data: [{ type: 'Site', id: '1' }] } },
    links: { self: `${base}units/${id}/` },
    ...extra,
  };
}

/** The list's entries after the valid record 1: each a mistake of its own. */
function mistakes(base: string): unknown[] {
  return [
    null,
    'a string',
    7,
    ['a', 'list'],
    unit(base, '2', { attributes: null }),
    unit(base, '3', { relationships: null }),
    unit(base, '4', { links: null }),
    unit(base, '5', { meta: null }),
    unit(base, '6', { relationships: { sites: null } }),
    unit(base, '7', { relationships: { sites: 'x' } }),
    unit(base, '8', { relationships: { sites: 5 } }),
    unit(base, '9', { relationships: 'x' }),
    unit(base, '10', { attributes: 'x' }),
    unit(base, '11', { attributes: ['x'] }),
    unit(base, '12', { relationships: { sites: { data: [null, 5, 'x', [1]] } } }),
    unit(base, '13', { relationships: { sites: { data: { type: 'Site', id: 1 } } } }),
    unit(base, '14', { relationships: { sites: { data: [], links: null } } }),
    { ...unit(base, '15'), id: 15 },
    unit(base, '16', { attributes: { term: 'term 16', constructor: 'x' } }),
  ];
}

/** The source: a collection `units` whose list holds record 1 and the mistakes, and a collection `sites`. */
const mistaken: http.RequestListener = (req, res) => {
  const base = `http://${req.headers.host}/api/`;
  const list = (data: unknown[], self: string) => ({
    links: { first: self, last: self, next: null, prev: null },
    data,
    meta: { pagination: { page: 1, pages: 1, count: data.length } },
  });
  if (req.url === '/api/') return sendJson(res, 200, { data: { units: `${base}units/`, sites: `${base}sites/` } });
  if (req.url === '/api/units/') return sendJson(res, 200, list([unit(base, '1'), ...mistakes(base)], `${base}units/`));
  const site = { type: 'Site', id: '1', attributes: { term: 'a site' }, links: { self: `${base}sites/1/` } };
  if (req.url === '/api/sites/') return sendJson(res, 200, list([site], `${base}sites/`));
  if (req.url === '/api/sites/1/') return sendJson(res, 200, { data: site });
  const id = /^\/api\/units\/(\d+)\/$/.exec(req.url ?? '')?.[1];
  const record = [unit(base, '1'), ...mistakes(base)].find(
    (item) => typeof item === 'object' && item !== null && String((item as { id?: unknown }).id) === id,
  );
  if (record !== undefined) return sendJson(res, 200, { data: record });
  sendJson(res, 404, { errors: [{ status: '404' }] });
};

const QUERIES = [
  '?page[size]=3',
  '?page[size]=3&page[number]=2',
  '?sort=term',
  '?sort=-term,id',
  '?filter[term]=term%201',
  '?filter[sites]=1',
  '?filter[sites.term]=a%20site',
  '?include=sites',
  '?sort=constructor',
];

describe('a collection of records with small JSON:API mistakes', () => {
  it('is mirrored and reported; verify agrees; serve answers every query without a 500', async () => {
    const server = await source(mistaken);
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(`${server.url}/api/`, out, { catalogue: 'none' });
    const collection = `${server.url}/api/units/`;
    const pointers = new Set(result.report.findings.filter((f) => f.url === collection).map((f) => f.pointer));
    // Every mistake is named where it is, in the list (all but the last entry, whose `constructor` is no mistake).
    for (let i = 1; i < mistakes('').length; i += 1) {
      expect(
        [...pointers].some((p) => p === `/data/${i}` || p.startsWith(`/data/${i}/`)),
        `/data/${i}`,
      ).toBe(true);
    }
    // Stored as the source sent it.
    const stored = (await readJson(out, 'api/units/index.html')) as { data: unknown[] };
    expect(stored.data.slice(1, 5)).toEqual([null, 'a string', 7, ['a', 'list']]);

    const verified = await verifySnapshot(out);
    expect(verified.problems).toEqual([]);
    expect(verified.recordedErrors).toBeGreaterThan(0);

    const serve: ServeHandle = await startServe({ dir: out, port: 0 });
    closers.push(() => serve.close());
    for (const query of QUERIES) {
      const answer = await getJson(`${serve.url}units/${query}`);
      expect(answer.status, query).not.toBe(500);
      expect([200, 400], query).toContain(answer.status);
      expect(answer.json, query).toHaveProperty(answer.status === 200 ? 'data' : 'errors');
    }
    // Records without a readable term sort after every term, as null does.
    const sorted = await getJson(`${serve.url}units/?sort=term&page[size]=100`);
    expect(sorted.status).toBe(200);
    const terms = (sorted.json as { data: Array<{ attributes?: unknown }> }).data.map((record) => {
      const attributes = record.attributes;
      return typeof attributes === 'object' && attributes !== null && !Array.isArray(attributes)
        ? (attributes as { term?: unknown }).term
        : undefined;
    });
    const known = terms.filter((term) => term !== undefined);
    expect(terms.slice(0, known.length)).toEqual([...known].sort());
    expect(known.length).toBeGreaterThan(5);

    expect((await diffSnapshots(out, out)).identical).toBe(true);
  });
});

describe('the catalogue of such a collection', () => {
  it('is built, or the crawl ends saying how to publish without it: never an unexpected failure', async () => {
    const server = await source(mistaken);
    const out = path.join(await tempDir(), 'out');
    const crawl = await runMain(['crawl', `${server.url}/api/`, '--out', out, '--retries', '0']);
    expect(crawl.stderr).not.toContain('unexpected failure');
    expect(crawl.stderr).not.toMatch(/^\s+at /m);
    if (crawl.code !== 0) {
      expect(crawl.code).toBe(1);
      expect(crawl.stderr).toContain('--resume and --catalogue none');
      const resumed = await runMain(['crawl', `${server.url}/api/`, '--out', out, '--resume', '--catalogue', 'none']);
      expect(resumed.code, resumed.stderr).toBe(0);
    }
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });
});

/** A collection of two pages of one record each; `second` is what page 2 answers, `first` replaces page 1. */
function twoPages(second: (page: (n: number, data: unknown[]) => unknown) => unknown, first?: unknown) {
  return (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const base = `http://${req.headers.host}/api/`;
    const p2 = `${base}units/?page%5Bnumber%5D=2`;
    const page = (n: number, data: unknown[]) => ({
      links: { first: `${base}units/`, last: p2, next: n === 1 ? p2 : null, prev: n === 2 ? `${base}units/` : null },
      data,
      meta: { pagination: { page: n, pages: 2, count: 2 } },
    });
    if (req.url === '/api/') return sendJson(res, 200, { data: { units: `${base}units/` } });
    if (req.url === '/api/units/') return sendJson(res, 200, first === undefined ? page(1, [unit(base, '1')]) : first);
    if (req.url?.startsWith('/api/units/?')) return sendJson(res, 200, JSON.stringify(second(page)));
    if (req.url === '/api/units/1/') return sendJson(res, 200, { data: unit(base, '1') });
    if (req.url === '/api/units/2/') return sendJson(res, 200, { data: unit(base, '2', { relationships: 'x' }) });
    sendJson(res, 404, { errors: [{ status: '404' }] });
  };
}

describe('a collection whose later pages, or first page, hold mistakes or are no list at all', () => {
  const cases: Array<[string, http.RequestListener]> = [
    ['a mistake on page 2', twoPages((page) => page(2, [unit('http://x/api/', '2', { relationships: 'x' }), null]))],
    ['page 2 null', twoPages(() => null)],
    ['page 2 an error document', twoPages(() => ({ errors: [{ status: '500' }] }))],
    ['page 1 null', twoPages((page) => page(2, []), null)],
    ['page 1 an error document beside no data', twoPages((page) => page(2, []), { errors: [{ status: '500' }] })],
    ['page 1 a list of documents', twoPages((page) => page(2, []), [{ data: [] }])],
  ];
  it.each(cases)('%s: crawl, verify, diff and serve agree', async (_name, handler) => {
    const server = await source(handler);
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(`${server.url}/api/`, out, { catalogue: 'none' });
    expect(result.report.findings.some((f) => f.url.startsWith(`${server.url}/api/units/`))).toBe(true);
    expect((await verifySnapshot(out)).problems).toEqual([]);
    expect((await diffSnapshots(out, out)).identical).toBe(true);
    const serve: ServeHandle = await startServe({ dir: out, port: 0 });
    closers.push(() => serve.close());
    for (const query of ['', '?page[size]=10', '?sort=term']) {
      expect((await getJson(`${serve.url}units/${query}`)).status, query).toBe(200);
    }
  });
});
