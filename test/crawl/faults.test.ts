/**
 * Faults: an unreliable source is crawled completely; a source that keeps failing ends the crawl with
 * the URL, or (with --allow-partial) publishes a snapshot marked partial that verify reports as such; Retry-After
 * and --rate are honoured.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/crawl/fetcher.js';
import { startSampleApi } from '../../src/sample-api/index.js';
import { META_DIR } from '../../src/store/sums.js';
import { runMain } from '../helpers/cli.js';
import { closedAfterEach, sendJson } from '../helpers/http-server.js';
import { readJson, sourceFreeHashes } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';
import { records, startTinySource } from '../helpers/tiny-source.js';

const tinySource = closedAfterEach(startTinySource);

describe('an unreliable source', () => {
  it('at --fault-rate 0.3 with every fault kind, the crawl completes and equals the fault-free crawl', async () => {
    const clean = await startSampleApi({ records: 2, pageSize: 4, seed: 5 });
    const faulty = await startSampleApi({
      records: 2,
      pageSize: 4,
      seed: 5,
      faultRate: 0.3,
      stallMs: 300,
      retryAfterSeconds: 0,
    });
    try {
      const base = await tempDir();
      await crawlForTest(clean.rootUrl, path.join(base, 'clean'));
      const result = await crawlForTest(faulty.rootUrl, path.join(base, 'faulty'), {
        timeoutMs: 200,
        retries: 5,
        backoffBaseMs: 5,
      });
      const kinds = new Set(faulty.requestLog.map((r) => String(r.status)));
      for (const kind of ['500', '503', '429', 'reset', 'stall', 'truncated', 'corrupt-gzip'])
        expect(kinds, kind).toContain(kind);
      expect(result.retries).toBeGreaterThan(50);
      expect(await sourceFreeHashes(path.join(base, 'faulty'), new URL(faulty.rootUrl).origin)).toEqual(
        await sourceFreeHashes(path.join(base, 'clean'), new URL(clean.rootUrl).origin),
      );
    } finally {
      await clean.close();
      await faulty.close();
    }
  }, 120_000);

  it('reads Retry-After as seconds and as an HTTP-date', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:02 GMT', now)).toBe(2000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('waits as long as an HTTP-date Retry-After says before asking again', async () => {
    const times: number[] = [];
    const server = await tinySource({
      collections: { licenses: [] },
      onRequest: (req, res) => {
        if (req.url === '/api/') return;
        times.push(Date.now());
        if (times.length > 1) return;
        res.writeHead(503, { 'retry-after': new Date(Date.now() + 2000).toUTCString() });
        res.end();
      },
    });
    await crawlForTest(server.root, path.join(await tempDir(), 'out'), { retries: 1, backoffBaseMs: 1 });
    expect(times).toHaveLength(2);
    // An HTTP-date has whole seconds, so the wait is between one and two seconds; the backoff alone would be ~1 ms.
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(900);
  });

  it('--rate holds with retries counted: never more requests by any time than the rate allows', async () => {
    const times: number[] = [];
    let n = 0;
    /** When the root index was answered: every other request is sent after it. */
    let rootAnswered = 0;
    const server = await tinySource({
      collections: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`c${i}`, []])),
      onRequest: (req, res) => {
        if (req.url === '/api/') {
          rootAnswered = performance.now();
          return;
        }
        times.push(performance.now());
        // Every other answer fails, so half the requests are retries.
        if (n++ % 2 === 0) sendJson(res, 503, { errors: [{ status: '503' }] });
      },
    });
    // Slow enough that a break (retries without a slot: half the requests free) shows on a busy machine too.
    const rate = 10;
    await crawlForTest(server.root, path.join(await tempDir(), 'out'), {
      rate,
      concurrency: 8,
      retries: 5,
      backoffBaseMs: 1,
    });
    expect(times.length).toBeGreaterThanOrEqual(24);
    // The requests after the root index take slots 1 / rate apart, the first no earlier than the root's answer, so
    // the k-th (from 0) arrives k slots after that answer at the earliest, retries included. This thread notes an
    // arrival late when it is busy, which only moves it later; a timer may fire a little early: one slot of slack.
    // (Counting the requests in any second instead fails on a busy machine: requests held up together arrive
    // together.)
    const early = times
      .map((t, k) => ({ k, after: (t - rootAnswered) / 1000 }))
      .filter(({ k, after }) => after < (k - 1) / rate);
    expect(rootAnswered).toBeGreaterThan(0);
    expect(early).toEqual([]);
  });
});

describe('a document that always fails', () => {
  const source = () => tinySource({ collections: { licenses: records(2) }, failing: ['licenses/2/'] });

  it('with --allow-partial is published, marked partial with the missing URL, and verify exits 4', async () => {
    const server = await source();
    const out = path.join(await tempDir(), 'out');
    const crawl = await runMain(['crawl', server.root, '--out', out, '--retries', '1', '--allow-partial', '--quiet']);
    expect(crawl.code).toBe(0);
    expect(crawl.stdout).toContain(
      `PARTIAL: 1 document could not be fetched (listed in the manifest), for example ${server.url}/api/licenses/2/`,
    );
    const manifest = (await readJson(out, `${META_DIR}/manifest.json`)) as { partial: boolean; missing: string[] };
    expect(manifest.partial).toBe(true);
    expect(manifest.missing).toEqual([`${server.url}/api/licenses/2/`]);
    const verify = await runMain(['verify', out]);
    expect(verify.code).toBe(4);
    expect(verify.stderr).toContain('is a partial snapshot: 1 document could not be fetched');

    const strictly = await runMain([
      'crawl',
      server.root,
      '--out',
      path.join(await tempDir(), 'o2'),
      '--retries',
      '1',
      '--quiet',
    ]);
    expect(strictly.code).toBe(1);
    expect(strictly.stderr).toContain(
      `${server.url}/api/licenses/2/ could not be fetched: HTTP 500 (after 2 attempts)`,
    );
  }, 30_000);
});
