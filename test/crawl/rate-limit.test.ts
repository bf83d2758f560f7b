/**
 * `--rate`: requests start at most that many a second, each at least an interval after the one before, also when the
 * event loop was held up meanwhile (timers booked ahead would all fire together after it: a burst at the source).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/crawl/rate-limiter.js';
import { runCli } from '../helpers/cli.js';
import { crawlForTest } from '../helpers/crawl.js';
import { tempDir } from '../helpers/temp-dir.js';
import { records, startTinySource } from '../helpers/tiny-source.js';

/**
 * Times here are noted once the limiter has let a caller go (or once a request has reached the source), which a busy
 * machine can delay by any amount for one caller and not the next: a gap between two such notes proves nothing. What
 * a delay cannot do is make a note earlier, so each is checked against a time noted before the limiter could have let
 * the first go: the k-th at least k intervals after it. A limiter that lets callers go together (a burst) lets them
 * all go within a few milliseconds of the first.
 */
function tooEarly(from: number, times: number[], intervalMs: number): Array<{ k: number; after: number }> {
  return times.map((time, k) => ({ k, after: time - from })).filter(({ k, after }) => after < k * intervalMs);
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
    const held = performance.now();
    await Promise.all(takes);
    expect(starts).toHaveLength(6);
    // The second was waiting on a timer through the hold and goes after it; each next one an interval after that.
    expect(tooEarly(held, starts.slice(1), 50)).toEqual([]);
  });

  it('lets a caller that gives up leave at once; the ones behind it keep their place and their spacing', async () => {
    const limiter = new RateLimiter(10);
    const before = performance.now();
    await limiter.take();
    const events: string[] = [];
    const controller = new AbortController();
    const second = limiter.take().then(() => events.push('second'));
    const third = limiter.take(controller.signal).catch((error: unknown) => {
      events.push('third gave up');
      throw error;
    });
    const fourth = limiter.take().then(() => {
      events.push('fourth');
      return performance.now();
    });
    controller.abort();
    await expect(third).rejects.toThrow();
    const secondAt = await second.then(() => performance.now());
    const fourthAt = await fourth;
    expect(events).toEqual(['third gave up', 'second', 'fourth']);
    // The first, the second and the fourth an interval apart: the fourth took the place the third left, no sooner.
    expect(tooEarly(before, [before, secondAt, fourthAt], 100)).toEqual([]);
  });

  it('refuses with the reason when the signal has already aborted', async () => {
    const limiter = new RateLimiter(1);
    await limiter.take();
    await expect(limiter.take(AbortSignal.abort(new Error('stopped')))).rejects.toThrow('stopped');
  });
});

describe('crawl --rate', () => {
  it('with more requests waiting than Node warns of (11 listeners to one signal), prints no warning', async () => {
    // 40 records asked for 32 at a time, let go 400 a second: most wait for a slot at once.
    const source = await startTinySource({ collections: { units: records(40) } });
    try {
      const out = path.join(await tempDir(), 'out');
      const crawl = ['crawl', source.root, '--out', out, '--quiet', '--rate', '400', '--concurrency', '32'];
      const run = await runCli(crawl);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      const workers = await runCli([...crawl, '--fresh', '--workers', '2']);
      expect(workers.code).toBe(0);
      expect(workers.stderr).toBe('');
    } finally {
      await source.close();
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
      const before = performance.now();
      const result = await crawlForTest(server.root, out, { rate: 10, concurrency: 4 });
      // One request a document: the root, the collection and its page, four records.
      expect(arrivals).toHaveLength(result.documents);
      expect(result.documents).toBeGreaterThanOrEqual(6);
      // Sent 100 ms apart, four allowed at once: the k-th reaches the source k intervals after the crawl began.
      expect(tooEarly(before, arrivals, 100)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
