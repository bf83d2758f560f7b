/**
 * A source that paginates a related to-many list endlessly (each page links to the next, past the pages it
 * declares) cannot run the crawl away: the guard that stops collection lists at their declared pages stops related
 * lists the same way, with a `pagination.runaway` finding.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const DECLARED = 2;

function hostile(base: string, pathname: string, page: number): unknown {
  const related = `${base}categories/1/types/`;
  const pageLink = (n: number) => `${related}?page[number]=${n}`;
  switch (pathname) {
    case '/api/':
      return { data: { categories: `${base}categories/` } };
    case '/api/categories/':
      return {
        links: { first: `${base}categories/`, last: `${base}categories/`, next: null, prev: null },
        data: [{ type: 'ActionCategory', id: '1', attributes: { term: 'c' }, links: { self: `${base}categories/1/` } }],
        meta: { pagination: { page: 1, pages: 1, count: 1 } },
      };
    case '/api/categories/1/':
      return {
        data: {
          type: 'ActionCategory',
          id: '1',
          attributes: { term: 'c' },
          relationships: { types: { links: { related } } },
          links: { self: `${base}categories/1/` },
        },
      };
    case '/api/categories/1/types/':
      // Declares two pages, and always links to the next one.
      return {
        links: { first: pageLink(1), last: pageLink(DECLARED), next: pageLink(page + 1), prev: null },
        data: [],
        meta: { pagination: { page, pages: DECLARED, count: 0 } },
      };
    default:
      return undefined;
  }
}

let server: TestServer;
let out: string;
let outcome: unknown;
let removeDir: () => Promise<void>;
beforeAll(async () => {
  server = await startServer((req, res) => {
    const base = `http://${req.headers.host}/api/`;
    const url = new URL(req.url ?? '/', base);
    const body = hostile(base, url.pathname, Number(url.searchParams.get('page[number]') ?? '1'));
    if (body === undefined) return sendJson(res, 404, { errors: [{ status: '404' }] });
    sendJson(res, 200, body);
  });
  const suite = await suiteDir();
  removeDir = suite.remove;
  out = path.join(suite.dir, 'out');
  // --max-documents is the last line of defence: without the guard the crawl would stop there with an error.
  outcome = await crawlForTest(`${server.url}/api/`, out, { maxDocuments: 40 }).catch((e: unknown) => e);
});
afterAll(async () => {
  await server.close();
  await removeDir();
});

describe('a related list that paginates endlessly', () => {
  it('is fetched up to the pages it declares and no further', () => {
    expect(outcome).not.toBeInstanceOf(Error);
    const relatedPages = server.requests.filter((request) => request.startsWith('/api/categories/1/types/'));
    expect(relatedPages.length).toBe(DECLARED);
    expect(relatedPages.some((request) => /page(\[|%5B)number(\]|%5D)=3/i.test(request))).toBe(false);
  });

  it('is reported as pagination.runaway, naming the related list and the page not fetched', async () => {
    const report = JSON.parse(await readFile(path.join(out, '_cv-snapshot', 'report.json'), 'utf8')) as {
      findings: Array<{ rule: string; url: string; message: string }>;
    };
    const runaway = report.findings.filter((finding) => finding.rule === 'pagination.runaway');
    expect(runaway).toHaveLength(1);
    expect(runaway[0]!.url).toBe(`${server.url}/api/categories/1/types/?page[number]=${DECLARED}`);
    expect(runaway[0]!.message).toContain(`page ${DECLARED + 1} of categories/1/types/`);
  });
});
