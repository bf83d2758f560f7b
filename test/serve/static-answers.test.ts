/**
 * `cv-snapshot serve` and the files outside the API: catalogue pages answered with any query string
 * (their scripts keep search and sort there), every kind of file typed as a static host types it (scripts as
 * JavaScript, so that no `nosniff` proxy refuses them), and text answers compressed for a client that asks, with the
 * exact bytes back after decoding, and never for one that does not.
 */
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/serve/index.js';
import { get } from '../sample-api/http.js';
import { startMirror, type Mirror } from './fixture.js';

let mirror: Mirror;
let serve: ServeHandle;
let origin: string;
/** Every file SHA256SUMS lists (the files serve answers; SHA256SUMS is not one of them). */
let listed: string[];

/** Files a snapshot may hold beside the catalogue (an export, images), listed in SHA256SUMS as crawl lists files. */
const EXTRA: Record<string, string> = {
  '_export/units.ttl': '<https://example.org/units/1> a <http://www.w3.org/2004/02/skos/core#Concept> .\n',
  '_export/units.jsonld': '{"@context":{},"@graph":[]}\n',
  '_export/units.csv': 'id,term\n1,kelvin\n',
  '_catalogue/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
  '_catalogue/logo.png': '\x89PNG\r\n\x1a\n',
  'NOTES.md': '# Notes\n',
};

/** Media types by extension, as static hosts send them. */
const MEDIA_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.ttl': 'text/turtle; charset=utf-8',
  '.jsonld': 'application/ld+json',
  '.csv': 'text/csv; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.md': 'text/markdown; charset=utf-8',
};
const NOT_SERVED = new Set(['_headers', '_redirects', 'serve.json', '404.html']);

function urlOf(file: string): string {
  return `${origin}/${file.split('/').map(encodeURIComponent).join('/')}`;
}

beforeAll(async () => {
  mirror = await startMirror({ records: 14, pageSize: 10, seed: 5 });
  const sums = path.join(mirror.dir, '_cv-snapshot', 'SHA256SUMS');
  for (const [file, text] of Object.entries(EXTRA)) {
    await mkdir(path.dirname(path.join(mirror.dir, file)), { recursive: true });
    await writeFile(path.join(mirror.dir, file), text, 'latin1');
    const sha256 = createHash('sha256').update(Buffer.from(text, 'latin1')).digest('hex');
    await appendFile(sums, `${sha256}  ${file}\n`);
  }
  listed = (await readFile(sums, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.slice(66));
  serve = await startServe({ dir: mirror.dir, port: 0 });
  origin = serve.origin;
}, 60_000);

afterAll(async () => {
  await serve.close();
  await mirror.close();
});

describe('catalogue pages and other files outside the API', () => {
  it('are answered with any query, as static hosts answer them; JSON:API answers still check theirs', async () => {
    const front = await readFile(path.join(mirror.dir, 'index.html'));
    const collectionPage = listed.find((file) => /^_catalogue\/units\/page-1\.html$/.test(file))!;
    const recordPage = listed.find((file) => /^_catalogue\/units\/r-[^/]+\.html$/.test(file))!;
    expect([collectionPage, recordPage]).not.toContain(undefined);
    const cases: Array<[string, Buffer]> = [
      [`${origin}/?q=kelvin`, front],
      [`${origin}/index.html?q=kelvin`, front],
      [`${origin}/index.html?q=%C2%B0C&type=Unit`, front],
      [`${urlOf(collectionPage)}?sort=term`, await readFile(path.join(mirror.dir, collectionPage))],
      [`${urlOf(recordPage)}?q=kelvin`, await readFile(path.join(mirror.dir, recordPage))],
      [`${urlOf('_catalogue/catalogue.js')}?v=2`, await readFile(path.join(mirror.dir, '_catalogue/catalogue.js'))],
      [
        `${urlOf('_cv-snapshot/manifest.json')}?x=1`,
        await readFile(path.join(mirror.dir, '_cv-snapshot/manifest.json')),
      ],
    ];
    for (const [url, bytes] of cases) {
      const answer = await get(url, { headers: { accept: 'text/html,*/*;q=0.8' } });
      expect(answer.status, url).toBe(200);
      expect(answer.body.equals(bytes), url).toBe(true);
    }
    // An API URL that a browser asks for is answered with its page, whatever the query; JSON:API queries as before.
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    for (const url of [`${serve.url}units/?q=kelvin&sort=term`, `${serve.url}?q=kelvin`]) {
      const page = await get(url, { headers: html });
      expect(page.status, url).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    }
    for (const url of [`${serve.url}units/?q=kelvin`, `${serve.url}units/1/?q=kelvin`, `${serve.url}?q=kelvin`]) {
      const answer = await get(url);
      expect(answer.status, url).toBe(400);
      expect(JSON.parse(answer.text).errors[0].detail).toBe('invalid query parameter: q');
    }
  });

  it('types every file outside the API by its kind, scripts as JavaScript', async () => {
    const outside = listed.filter((file) => !file.startsWith('sms/') && !NOT_SERVED.has(file));
    const kinds = new Set(outside.map((file) => path.extname(file) || path.basename(file)));
    expect([...kinds].sort()).toEqual(Object.keys(MEDIA_TYPES).sort());
    for (const file of outside) {
      const answer = await get(urlOf(file), { method: 'HEAD' });
      expect(answer.status, file).toBe(200);
      expect(answer.headers['content-type'], file).toBe(MEDIA_TYPES[path.extname(file) || path.basename(file)]);
    }
  });
});

describe('compression', () => {
  /** Text answers above a kilobyte: a stored list page, a generated list, a page, a script, the search index. */
  const large = (): string[] => [
    `${serve.url}units/`,
    `${serve.url}units/?sort=-term&page[size]=14`,
    `${origin}/index.html`,
    `${origin}/_catalogue/catalogue.js`,
    `${origin}/_catalogue/search-index.js`,
  ];

  it('sends gzip or Brotli to a client that asks, the plain answer once decoded, and only then', async () => {
    for (const url of large()) {
      const plain = await get(url);
      expect(plain.status, url).toBe(200);
      expect(plain.body.length, url).toBeGreaterThan(1024);
      expect(plain.headers['content-encoding'], url).toBeUndefined();
      expect(plain.headers.vary, url).toMatch(/Accept-Encoding/);
      for (const [accept, encoding, decode] of [
        ['gzip', 'gzip', gunzipSync],
        ['gzip, deflate, br', 'br', brotliDecompressSync],
        ['br;q=0.5, gzip', 'gzip', gunzipSync],
      ] as const) {
        const encoded = await get(url, { headers: { 'accept-encoding': accept } });
        expect(encoded.status, `${url} ${accept}`).toBe(200);
        expect(encoded.headers['content-encoding'], `${url} ${accept}`).toBe(encoding);
        expect(encoded.headers['content-type']).toBe(plain.headers['content-type']);
        expect(encoded.headers.vary).toMatch(/Accept-Encoding/);
        expect(Number(encoded.headers['content-length'])).toBe(encoded.body.length);
        expect(encoded.body.length).toBeLessThan(plain.body.length);
        expect(decode(encoded.body).equals(plain.body), `${url} ${accept}`).toBe(true);
        expect(encoded.headers.etag).toBeDefined();
        expect(encoded.headers.etag).not.toBe(plain.headers.etag);
      }
    }
    // Never encoded for a client that does not ask, or refuses every encoding.
    for (const url of large()) {
      for (const accept of [undefined, 'identity', 'gzip;q=0, br;q=0', 'deflate', '*;q=0']) {
        const answer = await get(url, { headers: accept === undefined ? {} : { 'accept-encoding': accept } });
        expect(answer.headers['content-encoding'], `${url} ${String(accept)}`).toBeUndefined();
        expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
      }
    }
  });

  it("compresses the catalogue's search scripts for a client taking gzip or br, as stored once decoded", async () => {
    // Whatever the catalogue writes for search: the scripts the front page loads.
    const front = await readFile(path.join(mirror.dir, 'index.html'), 'utf8');
    const scripts = [...front.matchAll(/<script src="([^"]+)"><\/script>/g)].map(([, src]) => src!);
    expect(scripts.some((src) => /search/.test(src))).toBe(true);
    for (const src of scripts) {
      const stored = await readFile(path.join(mirror.dir, ...src.split('/')));
      if (stored.length < 1024) continue;
      const url = `${origin}/${src}`;
      const encoded = await get(url, { headers: { 'accept-encoding': 'gzip, br' } });
      expect(encoded.status, src).toBe(200);
      expect(encoded.headers['content-encoding'], src).toBe('br');
      expect(encoded.body.length, src).toBeLessThan(stored.length);
      expect(brotliDecompressSync(encoded.body).equals(stored), src).toBe(true);
      const gzipOnly = await get(url, { headers: { 'accept-encoding': 'gzip' } });
      expect(gunzipSync(gzipOnly.body).equals(stored), src).toBe(true);
      // Otherwise as stored.
      const plain = await get(url);
      expect(plain.headers['content-encoding'], src).toBeUndefined();
      expect(plain.body.equals(stored), src).toBe(true);
    }
  });

  it('answers HEAD and If-None-Match for the encoded answer as for the plain one', async () => {
    for (const url of large()) {
      const headers = { 'accept-encoding': 'gzip' };
      const [got, head] = [await get(url, { headers }), await get(url, { headers, method: 'HEAD' })];
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const name of ['content-encoding', 'content-length', 'content-type', 'etag', 'vary']) {
        expect(head.headers[name], `${url} ${name}`).toBe(got.headers[name]);
      }
      const revalidated = await get(url, { headers: { ...headers, 'if-none-match': got.headers.etag! } });
      expect(revalidated.status, url).toBe(304);
      expect(revalidated.body.length).toBe(0);
      expect(revalidated.headers.etag).toBe(got.headers.etag);
      // The plain answer's ETag names other bytes: a client holding those gets them, not a 304 for the encoded ones.
      const plainTag = (await get(url)).headers.etag!;
      const other = await get(url, { headers: { ...headers, 'if-none-match': plainTag } });
      expect(other.status, url).toBe(200);
      expect(gunzipSync(other.body).equals((await get(url)).body)).toBe(true);
    }
  });
});
