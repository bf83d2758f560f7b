/** The manifest's `derive` member (its schema is src/format/derive-manifest.ts), made from a derived crawl's run. */
import type { DeriveManifest } from '../format/derive-manifest.js';
import type { DeriveRun } from './derive-run.js';
import { formatSampleSize } from './sample.js';

export function deriveManifest(run: DeriveRun, requests: number): DeriveManifest {
  const kinds = run.accounts;
  return {
    mode: 'derive',
    seed: run.seed,
    sample: formatSampleSize(run.sample),
    requests,
    fetched: kinds.reduce((sum, kind) => sum + kind.fetched, 0),
    derived: kinds.reduce((sum, kind) => sum + kind.derived, 0),
    mismatches: run.mismatches.length,
    kinds: kinds.map((kind) => ({ ...kind, fetchedBecause: { ...kind.fetchedBecause } })),
  };
}
