/**
 * The suite's crawl: `createSnapshot` with the options tests share. Sources here fail on purpose, so a failed request
 * is not retried unless a test asks (`retries`), and every snapshot records the same time, so that two snapshots of
 * one state are the same bytes. A test gives only what it is about.
 */
import { createSnapshot } from '../../src/pipeline/create-snapshot.js';
import type { SnapshotOptions, SnapshotResult } from '../../src/pipeline/snapshot-options.js';
import { createClock, type Clock } from '../../src/util/clock.js';

/** The time every test snapshot records (SOURCE_DATE_EPOCH), 2023-11-14T22:13:20Z: give it to a crawl in a process. */
export const TEST_EPOCH = '1700000000';

/** A clock at TEST_EPOCH, for the tests that call a command other than the crawl. */
export function testClock(): Clock {
  return createClock({ SOURCE_DATE_EPOCH: TEST_EPOCH });
}

/** Crawls `rootUrl` into `out` (a link to its generation, as --out is) with the suite's options and `options`. */
export function crawlForTest(
  rootUrl: string,
  out: string,
  options: Partial<Omit<SnapshotOptions, 'rootUrl' | 'out'>> = {},
): Promise<SnapshotResult> {
  return createSnapshot({ rootUrl, out, retries: 0, clock: testClock(), ...options });
}
