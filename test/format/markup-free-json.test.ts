/**
 * Stored JSON never becomes markup (docs/snapshot-format.md#json-that-is-never-markup): a document stored as
 * `<path>/index.html` is opened as a page where a host ignores `_headers` or from the disk, so its `<`, `>`, `&`,
 * U+2028 and U+2029 are written as `\u003c`… while its JSON value stays the source's. Every serving recipe sends
 * `X-Content-Type-Options: nosniff`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseBrowser, testBrowser } from '../helpers/browser.js';
import { diffSnapshotDirs } from '../../src/diff/index.js';
import { addCatalogue } from '../../src/pipeline/add-catalogue.js';
import { startServe, type ServeHandle } from '../../src/serve/index.js';
import { outputPaths } from '../../src/store/output-dir.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { compareCrawls } from '../derive/compare-crawls.js';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { listFiles, treeHashes } from '../helpers/snapshot.js';
import { startTinySource } from '../helpers/tiny-source.js';
import { copySnapshot, rewriteFile } from '../helpers/tiny-vocabulary.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';
const MARKUP = /[<>&\u2028\u2029]/;
const HOSTILE =
  `</script><script>document.title='PWNED'</script><img src=x onerror="document.title='PWNED'">` +
  `<!-- &amp; &lt;b&gt; \u2028line\u2029paragraph`;

/** Two units whose text, member names and links hold markup; the source sends it unescaped. */
function hostileSource(): Promise<TestServer> {
  return startServer((req, res) => {
    const base = `http://${req.headers.host}/api/`;
    const record = (id: string) => ({
      type: 'Unit',
      id,
      attributes: { term: `${HOSTILE} ${id}`, definition: HOSTILE, [`<b>${id}</b>&`]: '<i>x</i>' },
      relationships: {},
      links: { self: `${base}units/${id}/` },
    });
    if (req.url === '/api/') return sendJson(res, 200, { data: { units: `${base}units/` } });
    if (req.url === '/api/units/') {
      return sendJson(res, 200, {
        links: { first: `${base}units/?a=1&b=<2>`, last: `${base}units/`, next: null, prev: null },
        data: [record('1'), record('2')],
        meta: { pagination: { page: 1, pages: 1, count: 2 } },
      });
    }
    const match = /^\/api\/units\/([12])\/$/.exec(req.url ?? '');
    if (match) return sendJson(res, 200, { data: record(match[1]!) });
    sendJson(res, 404, { errors: [{ status: '404', detail: `<b>${req.url}</b>` }] });
  });
}

/** GET with exactly the headers given (no Accept unless named). */
function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      })
      .on('error', reject);
  });
}

let work: { dir: string; remove: () => Promise<void> };
let source: TestServer;
let out: string;

beforeAll(async () => {
  work = await suiteDir();
  source = await hostileSource();
  out = path.join(work.dir, 'original');
  await crawlForTest(`${source.url}/api/`, out, { links: 'original' });
});

afterAll(async () => {
  await source.close();
  await work.remove();
});

describe('stored JSON', () => {
  it('holds no character an HTML parser reads as markup, and the JSON value the source served', async () => {
    const documents = (await listFiles(out)).filter((file) => file.startsWith('api/') || file === '404.html');
    expect(documents).toEqual(
      expect.arrayContaining(['404.html', 'api/index.html', 'api/units/index.html', 'api/units/1/index.html']),
    );
    for (const file of documents) {
      const stored = await readFile(path.join(out, file), 'utf8');
      expect(stored, file).not.toMatch(MARKUP);
    }
    for (const url of ['units/', 'units/1/', 'units/2/']) {
      const served = await get(`${source.url}/api/${url}`);
      expect(served.text).toMatch(MARKUP);
      const stored = await readFile(path.join(out, 'api', ...url.split('/'), 'index.html'), 'utf8');
      // The bare collection URL holds the complete collection, its page links its own (snapshot-format.md).
      const value = (text: string) =>
        url === 'units/' ? (JSON.parse(text) as { data: unknown }).data : JSON.parse(text);
      expect(value(stored), url).toEqual(value(served.text));
      expect(stored).toContain('\\u003c/script\\u003e');
      expect(stored).toContain('\\u2028');
    }
  });

  it('is sound to verify', async () => {
    const result = await verifySnapshot(out);
    expect(result.problems).toEqual([]);
  });

  it('opens from the disk without running anything', async () => {
    let browser: Browser | undefined;
    try {
      browser = await testBrowser();
      const page = await browser.newPage();
      for (const file of ['api/units/1/index.html', 'api/units/index.html']) {
        await page.goto(pathToFileURL(path.join(out, file)).href);
        expect(await page.title()).not.toContain('PWNED');
        expect(await page.locator('script, img, b, i').count()).toBe(0);
        const text = await page.locator('body').innerText();
        expect(JSON.parse(text)).toEqual(JSON.parse(await readFile(path.join(out, file), 'utf8')));
      }
    } finally {
      await releaseBrowser(browser);
    }
  });
});

describe('serving the snapshot', () => {
  let serve: ServeHandle;
  beforeAll(async () => {
    serve = await startServe({ dir: out, port: 0 });
  });
  afterAll(async () => {
    await serve.close();
  });

  it('says nosniff in _headers and serve.json, for the API and for every other file', async () => {
    const headers = await readFile(path.join(out, '_headers'), 'utf8');
    const rules = headers.split(/\n(?=\S)/);
    expect(rules.find((rule) => rule.startsWith('/*\n'))).toMatch(/^ {2}X-Content-Type-Options: nosniff$/m);
    const serveJson = JSON.parse(await readFile(path.join(out, 'serve.json'), 'utf8')) as {
      headers: Array<{ source: string; headers: Array<{ key: string; value: string }> }>;
    };
    const everything = serveJson.headers.find((rule) => rule.source === '**');
    expect(everything?.headers).toContainEqual({ key: 'X-Content-Type-Options', value: 'nosniff' });
  });

  it('answers documents, queries and errors with nosniff and without markup, holding the same JSON', async () => {
    const record = await get(`${serve.url}units/1/`, { accept: 'application/vnd.api+json' });
    expect(record.headers['x-content-type-options']).toBe('nosniff');
    expect(record.text).not.toMatch(MARKUP);
    expect(JSON.parse(record.text)).toEqual(JSON.parse((await get(`${source.url}/api/units/1/`)).text));

    const query = await get(`${serve.url}units/?sort=-term&page[size]=1`, { accept: 'application/vnd.api+json' });
    expect(query.status).toBe(200);
    expect(query.headers['x-content-type-options']).toBe('nosniff');
    expect(query.text).not.toMatch(MARKUP);
    expect((JSON.parse(query.text) as { data: Array<{ id: string }> }).data.map((r) => r.id)).toEqual(['2']);

    const missing = await get(`${serve.url}units/9/`);
    expect(missing.status).toBe(404);
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
    const refused = await get(`${serve.url}units/?<b>=1`);
    expect(refused.status).toBe(400);
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
    expect(refused.text).not.toMatch(MARKUP);
  });
});

describe('a request serve cannot parse', () => {
  it('is answered with nosniff too', async () => {
    const serve = await startServe({ dir: out, port: 0 });
    try {
      const { port } = new URL(serve.origin);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nNot a header\r\n\r\n');
        });
        let data = '';
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => (data += chunk));
        socket.on('error', reject);
        socket.on('close', () => resolve(data));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
    } finally {
      await serve.close();
    }
  });
});

describe('a crawl interrupted and resumed, and a bare collection URL holding page 1', () => {
  /** The files of a tree outside its metadata folder, by path and SHA-256; each free of markup. */
  async function markupFree(dir: string): Promise<Record<string, string>> {
    const hashes = await treeHashes(dir);
    const tree = Object.fromEntries(Object.entries(hashes).filter(([file]) => file.startsWith('api/')));
    for (const file of [...Object.keys(tree), '404.html']) {
      expect(await readFile(path.join(dir, file), 'utf8'), file).not.toMatch(MARKUP);
    }
    return tree;
  }

  it('writes the escapes whichever run stores a document, and in either collection index', async () => {
    const tiny = await startTinySource({ term: HOSTILE });
    try {
      const full = path.join(work.dir, 'tiny-full');
      await crawlForTest(tiny.root, full);
      const expected = await markupFree(full);
      expect(Object.keys(expected)).toContain('api/units/1/index.html');

      const resumed = path.join(work.dir, 'tiny-resumed');
      const controller = new AbortController();
      const arrived = tiny.hold();
      const crawl = crawlForTest(tiny.root, resumed, { signal: controller.signal });
      await arrived;
      controller.abort('SIGINT');
      tiny.release();
      await expect(crawl).rejects.toThrow(/Interrupted/);
      const result = await crawlForTest(tiny.root, resumed, { resume: true });
      expect(result.resumed).toBeGreaterThan(0);
      expect(await markupFree(resumed)).toEqual(expected);
      expect((await verifySnapshot(resumed)).problems).toEqual([]);

      // An interrupted crawl whose documents an older version stored, before the escapes: they are fetched again.
      const aged = path.join(work.dir, 'tiny-aged');
      const stopping = new AbortController();
      const held = tiny.hold();
      const interrupted = crawlForTest(tiny.root, aged, { signal: stopping.signal });
      await held;
      stopping.abort('SIGINT');
      tiny.release();
      await expect(interrupted).rejects.toThrow(/Interrupted/);
      const paths = outputPaths(aged);
      const lines = (await readFile(paths.journal, 'utf8')).split('\n');
      let raw = 0;
      for (const [i, line] of lines.entries()) {
        const entry = line === '' ? null : (JSON.parse(line) as { t: string; file?: Record<string, unknown> | null });
        if (entry?.t !== 'doc' || !entry.file) continue;
        const file = path.join(paths.stagedTree, ...(entry.file.path as string).split('/'));
        const older = JSON.stringify(JSON.parse(await readFile(file, 'utf8')));
        if (MARKUP.test(older)) raw += 1;
        await writeFile(file, older);
        entry.file.sha256 = createHash('sha256').update(older).digest('hex');
        entry.file.size = Buffer.byteLength(older);
        lines[i] = JSON.stringify(entry);
      }
      expect(raw).toBeGreaterThan(0);
      await writeFile(paths.journal, lines.join('\n'));
      await crawlForTest(tiny.root, aged, { resume: true });
      expect(await markupFree(aged)).toEqual(expected);
      expect((await verifySnapshot(aged)).problems).toEqual([]);

      const firstPage = path.join(work.dir, 'tiny-first-page');
      await crawlForTest(tiny.root, firstPage, { collectionIndex: 'first-page' });
      await markupFree(firstPage);
      expect((await verifySnapshot(firstPage)).problems).toEqual([]);
    } finally {
      await tiny.close();
    }
  });
});

describe('an older snapshot, stored before the escapes, published again by `catalogue`', () => {
  it('is published with its documents escaped and its host files sending nosniff, as a crawl writes them', async () => {
    const older = await copySnapshot(out, path.join(work.dir, 'older'));
    const documents = (await listFiles(older)).filter((file) => file.startsWith('api/'));
    for (const file of documents) {
      const stored = await readFile(path.join(older, file), 'utf8');
      // What the tool wrote before: JSON.stringify's bytes, markup and all.
      await rewriteFile(older, file, JSON.stringify(JSON.parse(stored)), true);
    }
    const headers = await readFile(path.join(older, '_headers'), 'utf8');
    await rewriteFile(older, '_headers', headers.replace('/*\n  X-Content-Type-Options: nosniff\n', ''), true);
    expect(await readFile(path.join(older, 'api', 'units', '1', 'index.html'), 'utf8')).toMatch(MARKUP);
    expect((await verifySnapshot(older)).problems).toEqual([]);

    const published = path.join(work.dir, 'published');
    await addCatalogue({ input: older, out: published });
    for (const file of documents) {
      const text = await readFile(path.join(published, file), 'utf8');
      expect(text, file).not.toMatch(MARKUP);
      expect(JSON.parse(text), file).toEqual(JSON.parse(await readFile(path.join(older, file), 'utf8')));
    }
    expect(await readFile(path.join(published, '_headers'), 'utf8')).toBe(headers);
    expect((await verifySnapshot(published)).problems).toEqual([]);
    // The same records, however their bytes spell them.
    expect((await diffSnapshotDirs(older, published)).identical).toBe(true);
    // Byte for byte what a crawl of the same state writes.
    const [crawled, copied] = [await treeHashes(out), await treeHashes(published)];
    for (const file of [...documents, '_headers', 'serve.json', '404.html'])
      expect(copied[file], file).toBe(crawled[file]);
  });
});

describe('a derived crawl of a source with markup in its text', () => {
  it('writes the same escaped bytes as a full crawl', async () => {
    const work = await suiteDir();
    const crawls = await compareCrawls(work.dir, { records: 2 });
    try {
      expect(crawls.problems).toEqual([]);
      expect(crawls.derived.derive?.derived).toBeGreaterThan(0);
      expect(crawls.derivedTree).toEqual(crawls.fullTree);
      const files = Object.keys(crawls.fullTree).filter((file) => file.startsWith('sms/'));
      let escaped = 0;
      for (const file of files) {
        const text = await readFile(path.join(crawls.full.out, file), 'utf8');
        expect(text, file).not.toMatch(MARKUP);
        if (text.includes('\\u003cb\\u003edata sheet\\u003c/b\\u003e \\u0026 the manual')) escaped += 1;
      }
      expect(escaped).toBeGreaterThan(0);
    } finally {
      await crawls.api.close();
      await work.remove();
    }
    // Two crawls of the sample API: seconds, and several times that with the whole suite beside them.
  }, 60_000);
});
