/** A full crawl and a derived crawl of one sample API, side by side (shared by the derive tests). */
import path from 'node:path';
import type { DocumentKind } from '../../src/format/derive-manifest.js';
import { createSnapshot } from '../../src/pipeline/create-snapshot.js';
import type { SnapshotOptions, SnapshotResult } from '../../src/pipeline/snapshot-options.js';
import { startSampleApi, type SampleApi, type SampleApiOptions } from '../../src/sample-api/index.js';
import { canonicalUrl } from '../../src/url/canonical-url.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { testClock } from '../helpers/crawl.js';
import { readJson, treeHashes } from '../helpers/snapshot.js';

export const clock = testClock();

let counter = 0;

/** The tree outside the metadata folder, by path and hash. */
export async function mirrored(out: string): Promise<Record<string, string>> {
  const hashes = await treeHashes(out);
  return Object.fromEntries(Object.entries(hashes).filter(([file]) => !file.startsWith('_cv-snapshot/')));
}

// With createSnapshot's default retries, not crawlForTest's none: some sources here fail on purpose.
export async function snapshot(
  rootUrl: string,
  dir: string,
  options: Partial<SnapshotOptions> = {},
): Promise<SnapshotResult> {
  counter += 1;
  return createSnapshot({ rootUrl, out: path.join(dir, `out-${counter}`), clock, ...options });
}

export interface Mismatch {
  url: string;
  pointer: string;
  fetched: string | null;
  derived: string | null;
}

/** The canonical URLs a source was asked for since `from` (an index into its request log). */
export function requestedSince(api: SampleApi, from: number): string[] {
  return api.requestLog.slice(from).map((entry) => canonicalUrl(entry.url, api.rootUrl));
}

/** Both crawls of a sample API started with `source`; the caller closes `api`. */
export async function compareCrawls(
  dir: string,
  source: SampleApiOptions,
  derive: Partial<SnapshotOptions> = {},
  both: Partial<SnapshotOptions> = {},
) {
  const api = await startSampleApi(source);
  try {
    const full = await snapshot(api.rootUrl, dir, both);
    const before = api.requestLog.length;
    const derived = await snapshot(api.rootUrl, dir, { ...both, derive: true, verifySeed: 3, ...derive });
    const report = (await readJson(derived.out, '_cv-snapshot/report.json')) as { derive?: { mismatches: Mismatch[] } };
    return {
      api,
      full,
      derived,
      requested: requestedSince(api, before),
      fullTree: await mirrored(full.out),
      derivedTree: await mirrored(derived.out),
      problems: (await verifySnapshot(derived.out)).problems,
      mismatches: report.derive?.mismatches,
      kind: (collection: string, kind: DocumentKind) =>
        derived.derive!.kinds.find((entry) => entry.collection === collection && entry.kind === kind)!,
    };
  } catch (error) {
    await api.close();
    throw error;
  }
}
