/**
 * Which answer an `Accept` header gets from serve (docs/catalogue.md, "Through cv-snapshot serve"): the catalogue's
 * page only when `text/html` (or `application/xhtml+xml`) is named with a weight above every JSON type and `*\/*`;
 * the JSON otherwise, a tie, no `Accept` at all, `*\/*` and `text/*` included. Requests go out through node:http,
 * which sends exactly the headers given (fetch adds `Accept: *\/*` on its own, so it cannot send none).
 */
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/serve/index.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { records, snapshotOf } from '../helpers/tiny-vocabulary.js';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** GET `url` with exactly `headers` (node:http adds Host and Connection, nothing else). */
function get(url: string, headers: Record<string, string>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    request.on('error', reject);
  });
}

const HTML = 'html';
const JSON_API = 'json';

/** Accept headers (null: none sent) and what serve answers them, after the docs. */
const CASES: Array<[string | null, typeof HTML | typeof JSON_API]> = [
  [null, JSON_API],
  ['application/vnd.api+json, text/html', JSON_API],
  ['text/html, application/vnd.api+json', JSON_API],
  ['text/html;q=0.8, application/vnd.api+json;q=0.8', JSON_API],
  ['text/html, application/json', JSON_API],
  ['text/html, */*', JSON_API],
  ['text/html;q=0.9, */*;q=0.9', JSON_API],
  ['text/html, application/*', JSON_API],
  ['application/vnd.api+json, text/html;q=0.9', JSON_API],
  ['text/html;q=0.5, application/vnd.api+json', JSON_API],
  ['*/*', JSON_API],
  ['text/*', JSON_API],
  ['text/html;q=0', JSON_API],
  ['application/vnd.api+json', JSON_API],
  ['text/html', HTML],
  ['TEXT/HTML', HTML],
  ['application/xhtml+xml', HTML],
  ['text/html, application/vnd.api+json;q=0.9', HTML],
  ['application/vnd.api+json;q=0.1, text/html;q=0.2', HTML],
  ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', HTML],
];

describe('serve and the Accept header', () => {
  let dir: string;
  let serve: ServeHandle;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    const suite = await suiteDir();
    remove = suite.remove;
    dir = await snapshotOf({ collections: { units: records(3) } }, path.join(suite.dir, 'out'));
    serve = await startServe({ dir, port: 0 });
  });
  afterAll(async () => {
    await serve.close();
    await remove();
  });

  // What is asked for, the stored document its JSON answer is (a collection's URL answers its first page, as the
  // source does), and the catalogue page its HTML answer is.
  const targets: Array<[string, string, string, string]> = [
    ['root', '', 'api/index.html', 'index.html'],
    ['collection', 'units/', 'api/units/page/1/index.html', '_catalogue/units/page-1.html'],
    ['record', 'units/2/', 'api/units/2/index.html', '_catalogue/units/r-2.html'],
  ];

  for (const [name, below, stored, page] of targets) {
    it(`answers the ${name} with JSON or its page as the docs say, for each Accept`, async () => {
      const url = `${serve.url}${below}`;
      const document = JSON.parse(await readFile(path.join(dir, stored), 'utf8')) as unknown;
      const file = await readFile(path.join(dir, page), 'utf8');
      for (const [accept, expected] of CASES) {
        const reply = await get(url, accept === null ? {} : { accept });
        const what = `${url} with ${accept === null ? 'no Accept' : `Accept: ${accept}`}`;
        expect(reply.status, what).toBe(200);
        // Accept chooses JSON or the page (Accept-Encoding may follow: whether a text answer is compressed).
        expect(reply.headers.vary?.split(/,\s*/)[0], what).toBe('Accept');
        if (expected === HTML) {
          expect(reply.headers['content-type'], what).toBe('text/html; charset=utf-8');
          expect(reply.body, what).toBe(file.replace('<head>', `<head>\n<base href="/${page}">`));
        } else {
          expect(reply.headers['content-type'], what).toBe('application/vnd.api+json');
          expect(JSON.parse(reply.body), what).toEqual(document);
        }
      }
    });
  }
});
