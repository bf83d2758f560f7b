/**
 * Worker threads (`workers`): the per-document work moves off the main thread and the snapshot stays the same byte
 * for byte, faults, retries and hostile documents included. Worker threads run built JavaScript, so these tests call
 * the built library (dist/, which `npm test` builds first), with the same source crawled with no workers as the
 * reference.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import type * as Library from '../../src/index.js';
import type * as Pool from '../../src/pipeline/document-pool.js';
import { defaultWorkers } from '../../src/pipeline/document-pool.js';
import type { Finding } from '../../src/validate/finding.js';
import type http from 'node:http';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { recordDocument, startTinySource, type TinySource } from '../helpers/tiny-source.js';
import { readJson, treeHashes } from '../helpers/snapshot.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';
import { testClock } from '../helpers/crawl.js';

const DIST = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/index.js')).href;
const { createSnapshot, startSampleApi, verifySnapshot } = (await import(DIST)) as typeof Library;
const { DocumentPool } = (await import(new URL('pipeline/document-pool.js', DIST).href)) as typeof Pool;

/** Runs `work`, counting the worker threads started meanwhile (so a test knows that the threads did the work). */
async function countingWorkers<T>(work: () => Promise<T>): Promise<{ value: T; started: number }> {
  let started = 0;
  const count = () => (started += 1);
  process.on('worker', count);
  try {
    return { value: await work(), started };
  } finally {
    process.off('worker', count);
  }
}

/** A URL's path and query, as a server's request log has it. */
const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

interface CaptureRecord {
  type: string;
  uri: string;
  id: string;
  /** The request a response or metadata record is of. */
  refersTo: string | undefined;
}

/** The records of a capture file, in order, as warcio.js reads them. */
async function readCapture(file: string): Promise<CaptureRecord[]> {
  const records: CaptureRecord[] = [];
  for await (const record of WARCParser.iterRecords(createReadStream(file), { parseHttp: false })) {
    const fields = record.warcHeaders.headers as Headers;
    await record.readFully(false);
    records.push({
      type: record.warcType ?? '',
      uri: record.warcTargetURI ?? '',
      id: fields.get('WARC-Record-ID') ?? '',
      refersTo: fields.get('WARC-Concurrent-To') ?? fields.get('WARC-Refers-To') ?? undefined,
    });
  }
  return records;
}

function sortedFindings(findings: readonly Finding[]): string[] {
  return findings.map((f) => `${f.url} ${f.pointer} ${f.rule} ${f.message}`).sort();
}

// The first two tests crawl the sample API through faults and retries: seconds on an idle machine, and several times
// that when the cores are shared with other test files.
describe('a crawl with worker threads', () => {
  let base: string;
  let remove: () => Promise<void>;
  beforeAll(async () => ({ dir: base, remove } = await suiteDir()));
  afterAll(() => remove());

  it('publishes the same snapshot as one thread, through faults and retries', async () => {
    // Faults include bodies cut off and corrupt: a worker's "does not read" must reach the fetcher as a retry.
    const api = await startSampleApi({
      records: 2,
      pageSize: 4,
      seed: 5,
      faultRate: 0.3,
      stallMs: 300,
      retryAfterSeconds: 0,
    });
    try {
      const crawl = (workers: number) =>
        countingWorkers(() =>
          createSnapshot({
            rootUrl: api.rootUrl,
            out: path.join(base, `sample-${workers}`),
            clock: testClock(),
            workers,
            timeoutMs: 200,
            retries: 5,
            backoffBaseMs: 5,
          }),
        );
      const { value: inline, started: none } = await crawl(0);
      const { value: threaded, started } = await crawl(3);
      expect([none, started]).toEqual([0, 3]);
      const kinds = new Set(api.requestLog.map((r) => String(r.status)));
      for (const kind of ['truncated', 'corrupt-gzip', 'stall', '500']) expect(kinds, kind).toContain(kind);
      expect(threaded.retries).toBeGreaterThan(50);
      expect(threaded.documents).toBe(inline.documents);
      expect(threaded.documents).toBeGreaterThan(200);
      const hashes = await treeHashes(threaded.out);
      expect(hashes).toEqual(await treeHashes(inline.out));
      expect(Object.keys(hashes).some((file) => file.startsWith('_catalogue/'))).toBe(true);
      expect((await verifySnapshot(threaded.out)).problems).toEqual([]);
    } finally {
      await api.close();
    }
  }, 120_000);

  it('records each exchange into the one capture file with --warc, on the thread that made it', async () => {
    // One record of each kind: enough requests and retries for three threads to record at once.
    const api = await startSampleApi({
      records: 1,
      pageSize: 4,
      seed: 7,
      faultRate: 0.2,
      stallMs: 300,
      retryAfterSeconds: 0,
    });
    try {
      const out = path.join(base, 'captured');
      const { value: result, started } = await countingWorkers(() =>
        createSnapshot({
          rootUrl: api.rootUrl,
          out,
          workers: 3,
          warc: true,
          timeoutMs: 200,
          retries: 5,
          backoffBaseMs: 5,
          catalogue: 'none',
        }),
      );
      expect(started).toBe(3);
      expect(result.retries).toBeGreaterThan(10);
      const records = await readCapture(path.join(out, '_cv-snapshot', 'capture-00001.warc.gz'));
      expect(records[0]!.type).toBe('warcinfo');
      // A request record for each request the source received, faults and retries included.
      const requested = records.filter((record) => record.type === 'request').map((record) => pathOf(record.uri));
      expect(requested.sort()).toEqual(api.requestLog.map((entry) => entry.url).sort());
      // Each exchange's records lie together, request first, whichever thread wrote them: no two interleave.
      for (const [i, record] of records.entries()) {
        if (record.type !== 'response' && record.type !== 'metadata') continue;
        const request = records[i - 1]!;
        expect(request.type).toBe('request');
        expect(request.uri).toBe(record.uri);
        expect(request.id).toBe(record.refersTo);
      }
      // verify finds a response with status 200 for every document of the tree.
      expect((await verifySnapshot(out)).problems).toEqual([]);
    } finally {
      await api.close();
    }
  }, 120_000);

  describe('on a hostile source', () => {
    let server: TinySource;
    /** Answers to /api/units/cut/ so far: the first is cut off, within a complete response. */
    let cutAnswers = 0;
    const deep = `${'['.repeat(300)}${']'.repeat(300)}`;

    /** Where the file for units/a/ is planted before it is answered (what a case-folding file system does). */
    let planted = '';

    beforeAll(async () => {
      const units = ['ok', 'cut', 'page', 'deep', 'odd', 'a'].map((id) => ({ id, term: id }));
      const send = (res: http.ServerResponse, type: string, body: string) => {
        res.writeHead(200, { 'content-type': type });
        res.end(body);
      };
      const stored = (base: string, id: string) => recordDocument(base, 'units', { id, term: id });
      server = await startTinySource({
        collections: { units },
        answers: {
          'units/cut/': (res, base) =>
            cutAnswers++ === 0
              ? send(res, 'application/vnd.api+json', '{"data": {"type": "Unit", "id": "cut", "attr')
              : sendJson(res, 200, stored(base, 'cut')),
          'units/page/': (res) => send(res, 'text/html; charset=utf-8', '<!doctype html><title>Unit</title>'),
          'units/deep/': (res) => send(res, 'application/vnd.api+json', `{"data": ${deep}}`),
          // An id that is not a string: a validation error.
          'units/odd/': (res, base) =>
            sendJson(res, 200, recordDocument(base, 'units', { id: 'odd', term: 'odd', idJson: '5' })),
          'units/a/': async (res, base) => {
            if (planted !== '') {
              await mkdir(path.dirname(planted), { recursive: true });
              await writeFile(planted, '{"planted":true}');
            }
            sendJson(res, 200, stored(base, 'a'));
          },
        },
      });
    });
    afterAll(() => server.close());

    /** Crawls the source with --allow-partial; a file planted before units/a/ is written makes a collision. */
    async function crawlWith(workers: number) {
      cutAnswers = 0;
      const out = path.join(base, `hostile-${workers}`);
      planted = path.join(`${out}.staging`, 'tree', 'api', 'units', 'a', 'index.html');
      const { value: result, started } = await countingWorkers(() =>
        createSnapshot({
          rootUrl: `${server.url}/api/`,
          out,
          clock: testClock(),
          workers,
          allowPartial: true,
          retries: 2,
          backoffBaseMs: 1,
          catalogue: 'none',
        }),
      );
      expect(started).toBe(workers);
      return { result, out };
    }

    it('retries, refuses and reports each document as one thread does', async () => {
      const threaded = await crawlWith(2);
      const inline = await crawlWith(0);
      const root = `${server.url}/api/`;
      // The cut body was fetched again and stored whole.
      expect(await readJson(threaded.out, 'api/units/cut/index.html')).toMatchObject({ data: { id: 'cut' } });
      expect(threaded.result.retries).toBe(1);
      // HTML and a document nested too deep are missing, each with the sentence that names it.
      expect(threaded.result.missing).toEqual([`${root}units/deep/`, `${root}units/page/`]);
      const messages = threaded.result.report.findings.map((f) => `${f.rule} ${f.url} ${f.message}`);
      expect(messages).toContainEqual(
        expect.stringMatching(/^fetch\.failed \S*units\/page\/ Did not answer with JSON/),
      );
      expect(messages).toContainEqual(expect.stringMatching(/^fetch\.failed \S*units\/deep\/ Cannot be stored/));
      expect(messages).toContainEqual(expect.stringMatching(/^layout\.collision .*units\/a\//));
      const odd = threaded.result.report.findings.filter(
        (f) => f.url === `${root}units/odd/` && f.severity === 'error',
      );
      expect(odd.length).toBeGreaterThan(0);
      expect(sortedFindings(threaded.result.report.findings)).toEqual(sortedFindings(inline.result.report.findings));
      expect(await treeHashes(threaded.out)).toEqual(await treeHashes(inline.out));
    });

    it('ends the crawl with the same message when a document is HTML and --allow-partial is not given', async () => {
      planted = '';
      // One request at a time: units/page/ is the first of the two documents that end the crawl.
      const attempt = (workers: number) =>
        createSnapshot({
          rootUrl: `${server.url}/api/`,
          out: path.join(base, `failed-${workers}`),
          workers,
          concurrency: 1,
          retries: 0,
        }).then(
          () => 'published',
          (error: unknown) => (error as Error).message,
        );
      const [threaded, inline] = [await attempt(2), await attempt(0)];
      expect(threaded).toMatch(/units\/page\/ did not answer with JSON/);
      expect(threaded).toBe(inline.replaceAll('failed-0', 'failed-2'));
    });
  });

  describe('on a source that counts what it is asked', () => {
    const records = 40;
    let server: TestServer;
    let inFlight = 0;
    let mostInFlight = 0;
    let arrivals: number[] = [];
    /** When the source answered the collection: the crawl asks for no record before it. */
    let listAnswered = 0;
    /**
     * Records' requests are held until `peak` of them are at the source at once, so that a test sees the crawl
     * reach its limit however slowly a loaded machine sends them (none are held for a rated crawl). A crawl that
     * never reaches it is let go after 10 s, and then fails the count instead of hanging.
     */
    let gate: { peak: number; held: Array<() => void>; timer?: NodeJS.Timeout } | null = null;
    const open = (g: NonNullable<typeof gate>) => {
      clearTimeout(g.timer);
      if (gate === g) gate = null;
      for (const next of g.held.splice(0)) next();
    };

    beforeAll(async () => {
      server = await startServer((req, res) => {
        const base = `http://${req.headers.host}/api/`;
        const unit = (id: number) => ({
          type: 'Unit',
          id: String(id),
          attributes: { term: `unit ${id}` },
          relationships: {},
          links: { self: `${base}units/${id}/` },
        });
        const ids = Array.from({ length: records }, (_, i) => i + 1);
        arrivals.push(performance.now());
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        // Every answer takes a while, so that requests overlap as much as the crawl lets them.
        const answer = () => {
          inFlight -= 1;
          if (req.url === '/api/') return sendJson(res, 200, { data: { units: `${base}units/` } });
          if (req.url === '/api/units/') {
            listAnswered = performance.now();
            return sendJson(res, 200, {
              links: { first: `${base}units/`, last: `${base}units/`, next: null, prev: null },
              data: ids.map(unit),
              meta: { pagination: { page: 1, pages: 1, count: records } },
            });
          }
          const id = Number(/^\/api\/units\/(\d+)\/$/.exec(req.url ?? '')?.[1]);
          if (ids.includes(id)) return sendJson(res, 200, { data: unit(id) });
          sendJson(res, 404, { errors: [{ status: '404' }] });
        };
        const later = () => setTimeout(answer, 10);
        const g = gate;
        if (g === null || !/^\/api\/units\/\d+\/$/.test(req.url ?? '')) return later();
        g.held.push(later);
        if (inFlight >= g.peak) open(g);
        else g.timer ??= setTimeout(() => open(g), 10_000);
      });
    });
    afterAll(() => server.close());

    async function crawlCounting(
      name: string,
      options: { concurrency: number; workers: number; rate?: number },
      threads = options.workers,
    ) {
      [inFlight, mostInFlight, arrivals, listAnswered] = [0, 0, [], 0];
      gate = options.rate === undefined ? { peak: options.concurrency, held: [] } : null;
      const { value, started } = await countingWorkers(() =>
        createSnapshot({ rootUrl: `${server.url}/api/`, out: path.join(base, name), catalogue: 'none', ...options }),
      );
      expect(started).toBe(threads);
      return value;
    }

    it('never has more than --concurrency requests at the source, and counts every one', async () => {
      // Three workers share 4 requests (2, 1 and 1), each with as many URLs again queued: the source sees 4 at most.
      const result = await crawlCounting('counted', { concurrency: 4, workers: 3 });
      expect(result.documents).toBe(records + 2);
      expect(mostInFlight).toBe(4);
      expect(result.requests).toBe(arrivals.length);
      expect(result.retries).toBe(0);
    });

    it('starts no more workers than --concurrency, each with a request at a time', async () => {
      const result = await crawlCounting('few', { concurrency: 2, workers: 3 }, 2);
      expect(result.documents).toBe(records + 2);
      expect(mostInFlight).toBe(2);
      expect(result.requests).toBe(arrivals.length);
    });

    it('keeps to --rate across its workers', async () => {
      // Slow enough that a break (each worker taking the whole rate) shows on a busy machine too.
      const rate = 20;
      const result = await crawlCounting('rated', { concurrency: 8, workers: 2, rate });
      expect(result.requests).toBe(records + 2);
      // Each of the two workers takes half the rate, so spaces its requests 2 / rate apart, the first no earlier than
      // the collection's answer: of the first k + 1 records asked for (from 0), one worker asked for half at least, so
      // the k-th arrives floor(k / 2) of its intervals after that answer at the earliest. This thread notes an arrival
      // late when it is busy, which only moves it later; a timer may fire a little early: one interval of slack.
      // (Measured from the first request instead, a busy thread that notes that one late shortens the span.)
      const interval = 2 / rate;
      const afterList = arrivals.filter((t) => t > listAnswered);
      const early = afterList
        .map((t, k) => ({ k, after: (t - listAnswered) / 1000 }))
        .filter(({ k, after }) => after < (Math.floor(k / 2) - 1) * interval);
      expect(listAnswered).toBeGreaterThan(0);
      expect(afterList).toHaveLength(records);
      expect(early).toEqual([]);
    });
  });
});

describe('the root index with worker threads', () => {
  let server: TestServer;
  let base: string;
  let remove: () => Promise<void>;
  beforeAll(async () => {
    ({ dir: base, remove } = await suiteDir());
    server = await startServer((req, res) => {
      if (req.url === '/html/') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html><body>the browsable page</body></html>');
      }
      if (req.url === '/list/') return sendJson(res, 200, { data: [], links: {}, meta: {} });
      sendJson(res, 404, { errors: [{ status: '404' }] });
    });
  });
  afterAll(async () => {
    await server.close();
    await remove();
  });

  it('is fetched by a worker and checked on the main thread, with the same messages as without workers', async () => {
    const attempt = (root: string, workers: number) =>
      createSnapshot({ rootUrl: `${server.url}${root}`, out: path.join(base, `root-${workers}`), workers, retries: 0 })
        .then(
          () => 'published',
          (error: unknown) => (error as Error).message,
        )
        .then((message) => message.replaceAll(`root-${workers}`, 'root-n'));
    // One worker is enough to fetch the root; each one started loads the crawler's modules anew, at a cost in CPU.
    for (const root of ['/html/', '/list/', '/missing/']) {
      const { value: threaded, started } = await countingWorkers(() => attempt(root, 1));
      expect(started).toBe(1);
      const inline = await attempt(root, 0);
      expect(threaded).toMatch(/did not answer with JSON|is not the root index|HTTP 404/);
      expect(threaded).toBe(inline);
    }
  });
});

describe('a worker', () => {
  it('starts the next URL it holds by itself, while the main thread is busy, one request at a time', async () => {
    // The source runs in a process of its own, so that it answers while this thread is blocked; it prints each
    // request with how many it had at once, and also writes it to a file, which this thread reads while blocked.
    const log = path.join(await tempDir(), 'requests.log');
    const source = spawn(
      process.execPath,
      [
        '-e',
        `const http = require('node:http'); let open = 0, most = 0;
        const server = http.createServer((req, res) => {
          open += 1; most = Math.max(most, open);
          const line = JSON.stringify({ url: req.url, most });
          require('node:fs').appendFileSync(${JSON.stringify(log)}, line + '\\n');
          console.log(line);
          setTimeout(() => { open -= 1; res.writeHead(200, { 'content-type': 'application/vnd.api+json' });
            res.end('{"data":{}}'); }, 100);
        });
        server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const lines: Array<{ port?: number; url?: string; most?: number }> = [];
    source.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line !== '') lines.push(JSON.parse(line) as (typeof lines)[number]);
    });
    const stats = { requests: 0, retries: 0 };
    let pool: InstanceType<typeof DocumentPool> | undefined;
    try {
      while (lines.length === 0) await once(source.stdout, 'data');
      const base = `http://127.0.0.1:${lines[0]!.port}/api/`;
      const fetch = { retries: 0, timeoutMs: 5000, maxBytes: 1 << 20, userAgent: 'test', headers: {} };
      const settings = { root: base, links: 'relative' as const, baseUrl: undefined, tree: '', resuming: false };
      // One request at the source at a time: the worker holds a second URL queued.
      pool = new DocumentPool(
        1,
        1,
        { ...settings, fetch: { ...fetch, concurrency: 1, rate: undefined, backoffBaseMs: 1 } },
        stats,
      );
      const signal = new AbortController().signal;
      const answers = [`${base}a`, `${base}b`].map((url) => pool!.fetch(url, signal, { readHere: true }));
      // Once the worker has asked for the first, this thread stays busy (it never returns to its event loop) until
      // the source has the second request too: the worker asks for it by itself. (A worker that waited for this
      // thread would never ask, and the test would fail after 20 s.)
      while (lines.length < 2) await once(source.stdout, 'data');
      const giveUp = Date.now() + 20_000;
      let asked = false;
      while (!asked && Date.now() < giveUp) asked = readFileSync(log, 'utf8').includes('"/api/b"');
      expect(asked).toBe(true);
      const [a, b] = await Promise.all(answers);
      expect([a?.status, b?.status]).toEqual([200, 200]);
      const requests = lines.slice(1);
      expect(requests.map((r) => r.url)).toEqual(['/api/a', '/api/b']);
      expect(Math.max(...requests.map((r) => r.most!))).toBe(1);
    } finally {
      await pool?.close();
      source.kill();
    }
  });
});

describe('the command line default number of workers', () => {
  it('is the cores beyond two, at most 6, and none below four cores', () => {
    const byCores = [1, 2, 3, 4, 5, 8, 9, 16, 64].map((cores) => [cores, defaultWorkers(cores)]);
    expect(byCores).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 2],
      [5, 3],
      [8, 6],
      [9, 6],
      [16, 6],
      [64, 6],
    ]);
  });
});
