/** A Fetcher for tests against their own servers on 127.0.0.1: two connections, no retries, a short backoff. */
import { Fetcher, type FetcherOptions } from '../../src/crawl/fetcher.js';

/** Made with `options` over the defaults; closed by whoever runs `closers` after the test. */
export function testFetcher(closers: Array<() => Promise<void>>, options: Partial<FetcherOptions> = {}): Fetcher {
  const made = new Fetcher({
    concurrency: 2,
    retries: 0,
    timeoutMs: 5000,
    maxBytes: 1 << 20,
    userAgent: 'test',
    headers: {},
    backoffBaseMs: 1,
    ...options,
  });
  closers.push(() => made.close());
  return made;
}
