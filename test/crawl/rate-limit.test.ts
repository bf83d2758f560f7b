/**
 * `--rate`: requests start at most that many a second, each at least an interval after the one before, also when the
 * event loop was held up meanwhile (timers booked ahead would all fire together after it: a burst at the source).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/crawl/rate-limiter.js';
import { startSampleApi } from '../../src/sample-api/index.js';
import { runCli } from '../helpers/cli.js';
import { crawlForTest } from '../helpers/crawl.js';
import { tempDir } from '../helpers/temp-dir.js';
import { records, startTinySource } from '../helpers/tiny-source.js';

/**
 * What a gap measured here may fall short of the interval without the limiter being wrong. Node's timers count from
 * the loop's cached time, which may be a millisecond behind; and a test reads the clock only once the limiter has let
 * a caller go, which a busy machine can delay by a few milliseconds for one caller and not the next. A limiter that
 * lets callers go together (a burst) gives gaps of about a millisecond, far below the interval less this.
 */
const SLACK_MS = 10;

function gaps(times: number[]): number[] {
  return times.slice(1).map((time, i) => time - times[i]!);
}

/** Holds the event loop up, as parsing a large document does. */
function holdUp(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe('RateLimiter', () => {
  it('spaces requests an interval apart after the event loop was held up, without a burst', async () => {
    const limiter = new RateLimiter(20);
    const starts: number[] = [];
    const takes = Array.from({ length: 6 }, () => limiter.take().then(() => starts.push(performance.now())));
    await takes[0];
    holdUp(300);
    await Promise.all(takes);
    expect(starts).toHaveLength(6);
    for (const gap of gaps(starts)) expect(gap).toBeGreaterThanOrEqual(50 - SLACK_MS);
  });

  it('lets a caller that gives up leave at once; the ones behind it keep their place and their spacing', async () => {
    const limiter = new RateLimiter(10);
    await limiter.take();
    const events: string[] = [];
    const controller = new AbortController();
    const second = limiter.take().then(() => events.push('second'));
    const third = limiter.take(controller.signal).catch((error: unknown) => {
      events.push('third gave up');
      throw error;
    });
    let fourthAt = 0;
    const fourth = limiter.take().then(() => {
      events.push('fourth');
      fourthAt = performance.now();
    });
    controller.abort();
    await expect(third).rejects.toThrow();
    const secondAt = await second.then(() => performance.now());
    await fourth;
    expect(events).toEqual(['third gave up', 'second', 'fourth']);
    expect(fourthAt - secondAt).toBeGreaterThanOrEqual(100 - SLACK_MS);
  });

  it('refuses with the reason when the signal has already aborted', async () => {
    const limiter = new RateLimiter(1);
    await limiter.take();
    await expect(limiter.take(AbortSignal.abort(new Error('stopped')))).rejects.toThrow('stopped');
  });
});

describe('crawl --rate', () => {
  it('with more requests waiting than Node warns of (11 listeners to one signal), prints no warning', async () => {
    const api = await startSampleApi({ records: 2 });
    try {
      const out = path.join(await tempDir(), 'out');
      const run = await runCli(['crawl', api.rootUrl, '--out', out, '--quiet', '--rate', '400', '--concurrency', '32']);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      const workers = await runCli([
        ...['crawl', api.rootUrl, '--out', out, '--quiet', '--fresh'],
        ...['--rate', '400', '--concurrency', '32', '--workers', '2'],
      ]);
      expect(workers.code).toBe(0);
      expect(workers.stderr).toBe('');
    } finally {
      await api.close();
    }
  }, 60_000);

  it('the source sees the requests an interval apart', async () => {
    const arrivals: number[] = [];
    const server = await startTinySource({
      collections: { units: records(4) },
      onRequest: () => arrivals.push(performance.now()),
    });
    try {
      const out = path.join(await tempDir(), 'out');
      const result = await crawlForTest(server.root, out, { rate: 10, concurrency: 4 });
      // One request a document: the root, the collection and its page, four records.
      expect(arrivals).toHaveLength(result.documents);
      expect(result.documents).toBeGreaterThanOrEqual(6);
      // Sent at least 100 ms apart. On the way one request may be held up (a busy machine) and the next one not, which
      // shortens one gap and lengthens the next: no gap comes near the burst of a broken limiter (about 1 ms), and
      // together they span the intervals less at most one such delay.
      for (const gap of gaps(arrivals)) expect(gap).toBeGreaterThanOrEqual(25);
      expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual((arrivals.length - 1) * 100 - 75);
    } finally {
      await server.close();
    }
  });
});
