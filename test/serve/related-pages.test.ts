/**
 * A source that paginates a related to-many list (JSON:API allows it): the crawl stores each page,
 * links point at the stored pages, `verify` resolves them, and `cv-snapshot serve` answers every page URL the
 * source answered, in any spelling of `page[number]`, with or without `format=api`.
 */
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/serve/index.js';
import type { SnapshotResult } from '../../src/pipeline/snapshot-options.js';
import { Layout } from '../../src/format/layout.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { getJson, listFiles, normaliseLinks, readJson } from '../helpers/snapshot.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const TYPE_IDS = ['11', '12', '13', '14', '15'];
const PAGE_SIZE = 2;
const PAGES = Math.ceil(TYPE_IDS.length / PAGE_SIZE);

/** The page a Django REST framework service answers for a raw `page[number]`: Python's int(), `last`; else null. */
function drfPage(raw: string | null, pages: number): number | null {
  if (raw === null || raw === '') return 1;
  if (raw === 'last') return pages;
  if (!/^\s*[+-]?\d+\s*$/.test(raw)) return null;
  const n = Number.parseInt(raw.trim(), 10);
  return n >= 1 && n <= pages ? n : null;
}

function source(req: http.IncomingMessage, res: http.ServerResponse): void {
  const base = `http://${req.headers.host}/api/`;
  const url = new URL(req.url ?? '/', base);
  const notFound = () => sendJson(res, 404, { errors: [{ status: '404', detail: 'Invalid page.' }] });
  const actionType = (id: string) => ({
    type: 'ActionType',
    id,
    attributes: { term: `type ${id}` },
    links: { self: `${base}actiontypes/${id}/` },
  });
  const linkage = TYPE_IDS.map((id) => ({ type: 'ActionType', id }));
  const relationshipLink = `${base}actioncategories/1/relationships/action_types`;
  const category = {
    type: 'ActionCategory',
    id: '1',
    attributes: { term: 'Device' },
    relationships: {
      action_types: {
        meta: { count: TYPE_IDS.length },
        data: linkage,
        links: { self: relationshipLink, related: `${base}actioncategories/1/action_types/` },
      },
    },
    links: { self: `${base}actioncategories/1/` },
  };
  const list = (path: string, items: unknown[], page: number, pages: number, count: number) => {
    const link = (n: number) => `${base}${path}?format=api&page%5Bnumber%5D=${n}`;
    return {
      links: {
        first: link(1),
        last: link(pages),
        next: page < pages ? link(page + 1) : null,
        prev: page > 1 ? link(page - 1) : null,
      },
      data: items,
      meta: { pagination: { page, pages, count } },
    };
  };
  switch (url.pathname) {
    case '/api/':
      return sendJson(res, 200, {
        data: { actioncategories: `${base}actioncategories/`, actiontypes: `${base}actiontypes/` },
      });
    case '/api/actioncategories/':
      return sendJson(res, 200, list('actioncategories/', [category], 1, 1, 1));
    case '/api/actioncategories/1/':
      return sendJson(res, 200, { data: category });
    case '/api/actioncategories/1/relationships/action_types':
      return sendJson(res, 200, { data: linkage, links: { self: relationshipLink }, meta: { count: TYPE_IDS.length } });
    case '/api/actioncategories/1/action_types/': {
      const page = drfPage(url.searchParams.get('page[number]'), PAGES);
      if (page === null) return notFound();
      const items = TYPE_IDS.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map(actionType);
      return sendJson(res, 200, list('actioncategories/1/action_types/', items, page, PAGES, TYPE_IDS.length));
    }
    case '/api/actiontypes/':
      return sendJson(res, 200, list('actiontypes/', TYPE_IDS.map(actionType), 1, 1, TYPE_IDS.length));
    default: {
      const id = /^\/api\/actiontypes\/(\d+)\/$/.exec(url.pathname)?.[1];
      if (id !== undefined && TYPE_IDS.includes(id)) return sendJson(res, 200, { data: actionType(id) });
      return notFound();
    }
  }
}

let server: TestServer;
let serve: ServeHandle;
let out: string;
let result: SnapshotResult;
let layout: Layout;
let removeDir: () => Promise<void>;
const related = () => `${server.url}/api/actioncategories/1/action_types/`;

beforeAll(async () => {
  server = await startServer(source);
  const suite = await suiteDir();
  removeDir = suite.remove;
  out = path.join(suite.dir, 'out');
  result = await crawlForTest(`${server.url}/api/`, out);
  layout = new Layout(result.root);
  serve = await startServe({ dir: out, port: 0 });
}, 30_000);
afterAll(async () => {
  await serve.close();
  await server.close();
  await removeDir();
});

describe('a related list that the source paginates', () => {
  it('is stored page by page, page 1 at the related address, with its links pointing at the stored pages', async () => {
    const dir = 'api/actioncategories/1/action_types';
    const files = await listFiles(out);
    expect(files.filter((file) => file.startsWith(`${dir}/`))).toEqual([
      `${dir}/index.html`,
      `${dir}/page/2/index.html`,
      `${dir}/page/3/index.html`,
    ]);
    expect(result.report.findings.filter((f) => f.rule.startsWith('layout.'))).toEqual([]);
    const first = (await readJson(out, `${dir}/index.html`)) as { links: Record<string, string | null> };
    expect(first.links).toEqual({ first: `/${dir}/`, last: `/${dir}/page/3/`, next: `/${dir}/page/2/`, prev: null });
    type Page = { data: Array<{ id: string }>; links: Record<string, string | null> };
    const second = (await readJson(out, `${dir}/page/2/index.html`)) as Page;
    expect(second.data.map((item) => item.id)).toEqual(['13', '14']);
    const last = `/${dir}/page/3/`;
    expect(second.links).toEqual({ first: `/${dir}/`, last, next: last, prev: `/${dir}/` });
  });

  it('passes verify: every link resolves to a stored page', async () => {
    const verified = await verifySnapshot(out);
    expect(verified.problems).toEqual([]);
    // The related pages are read as what they are (no unstored or unexplained page); the shapes of this small
    // source's records are not the point here.
    expect(verified.findings.filter((f) => /^(pagination|reference|layout)\./.test(f.rule))).toEqual([]);
  });

  it('passes verify with the source links kept (--links original) and with absolute links too', async () => {
    const modes = [
      { links: 'original' as const },
      { links: 'absolute' as const, baseUrl: 'https://mirror.example/sub/' },
    ];
    for (const links of modes) {
      const other = path.join(path.dirname(out), `out-${links.links}`);
      const made = await crawlForTest(`${server.url}/api/`, other, { ...links });
      expect(
        made.report.findings.filter((f) => f.rule.startsWith('layout.')),
        links.links,
      ).toEqual([]);
      expect((await verifySnapshot(other)).problems, links.links).toEqual([]);
    }
  });

  it('is answered by serve at every page URL the source answered, in any spelling, as the source answers', async () => {
    const spellings: Array<[string, string]> = [
      ['', ''],
      ['?page[number]=1', '?page%5Bnumber%5D=1'],
      ['?page[number]=2', '?page%5Bnumber%5D=2'],
      ['?page%5Bnumber%5D=2&format=api', '?page%5Bnumber%5D=2'],
      ['?format=api&page%5bnumber%5d=3', '?page%5Bnumber%5D=3'],
      ['?page[number]=+2', '?page[number]=+2'],
      ['?page[number]=02', '?page[number]=02'],
      ['?page[number]=last', '?page[number]=last'],
    ];
    for (const [query, sourceQuery] of spellings) {
      const [fromSource, fromMirror] = await Promise.all([
        getJson(`${related()}${sourceQuery}`),
        getJson(`${serve.url}actioncategories/1/action_types/${query}`),
      ]);
      expect(fromMirror.status, query).toBe(200);
      expect(fromMirror.headers['content-type'], query).toBe('application/vnd.api+json');
      const documentUrl = related();
      expect(normaliseLinks(fromMirror.json, documentUrl, layout, true), query).toEqual(
        normaliseLinks(fromSource.json, documentUrl, layout, false),
      );
    }
    // The stored page paths themselves, with and without their slash, and a slash-less related address.
    const list = 'actioncategories/1/action_types';
    for (const target of [`${list}/page/2/`, `${list}/page/2`, `${list}?page[number]=2`]) {
      const answer = await getJson(`${serve.url}${target}`);
      expect(answer.status, target).toBe(200);
      expect((answer.json as { meta: unknown }).meta, target).toEqual({ pagination: { page: 2, pages: 3, count: 5 } });
    }
  });

  it('answers a page number that names no page with 404, as the source does, other parameters with 400', async () => {
    for (const query of ['?page[number]=4', '?page[number]=0', '?page[number]=-1', '?page[number]=x']) {
      const [fromSource, fromMirror] = await Promise.all([
        getJson(`${related()}${query}`),
        getJson(`${serve.url}actioncategories/1/action_types/${query}`),
      ]);
      expect(fromSource.status, query).toBe(404);
      expect(fromMirror.status, query).toBe(404);
      expect(fromMirror.json, query).toMatchObject({ errors: [{ status: '404', detail: 'Invalid page.' }] });
    }
    for (const query of ['?page[size]=2', '?page[number]=2&page[number]=3', '?sort=term']) {
      expect((await getJson(`${serve.url}actioncategories/1/action_types/${query}`)).status, query).toBe(400);
    }
    // A record is no list: it takes no page number.
    expect((await getJson(`${serve.url}actioncategories/1/?page[number]=2`)).status).toBe(400);
  });

  it('answers HEAD and OPTIONS on the page URLs', async () => {
    const url = `${serve.url}actioncategories/1/action_types/?page[number]=2`;
    const get = await fetch(url);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
    const options = await fetch(`${serve.url}actioncategories/1/action_types/page/2/`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});
