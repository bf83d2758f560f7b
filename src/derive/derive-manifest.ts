/**
 * The manifest's `derive` member (docs/snapshot.md#the-manifest): how a derived crawl decided, per kind and collection,
 * what to derive and what to fetch, and why. Absent from a full crawl's manifest.
 */
import * as z from 'zod';
import type { DeriveRun } from './derive-run.js';
import { DOCUMENT_KINDS } from './kinds.js';
import { formatSampleSize } from './sample.js';
import { FETCH_REASONS } from './sources.js';

const FETCHED_BECAUSE = ['sample', 'mismatch', 'unchecked', 'no-source', ...Object.keys(FETCH_REASONS)] as const;

export const deriveManifestSchema = z.object({
  mode: z.literal('derive'),
  /** The sample's seed: `--verify-seed <seed>` with the same lists takes the same sample. */
  seed: z.number().int(),
  /** `--verify-sample` as applied, such as `2%` or `20` (documents of each kind). */
  sample: z.string(),
  /** Requests the run made, retries not counted (with --resume: the last run's only). */
  requests: z.number().int().nonnegative(),
  /** Documents below the records, fetched and derived. */
  fetched: z.number().int().nonnegative(),
  derived: z.number().int().nonnegative(),
  /** Samples that differed from their derivation; each is listed in the report's `derive.mismatches`. */
  mismatches: z.number().int().nonnegative(),
  /** Per collection and kind, sorted. */
  kinds: z.array(
    z.object({
      collection: z.string(),
      kind: z.enum(DOCUMENT_KINDS),
      documents: z.number().int().nonnegative(),
      derived: z.number().int().nonnegative(),
      fetched: z.number().int().nonnegative(),
      /** `fetched` when a sample differed: then every document of the kind in the collection was fetched. */
      status: z.enum(['derived', 'fetched']),
      fetchedBecause: z.partialRecord(z.enum(FETCHED_BECAUSE), z.number().int().nonnegative()),
      /** The shape learned, such as `{data: entry}`; null when the kind was fetched. */
      shape: z.string().nullable(),
    }),
  ),
});
export type DeriveManifest = z.infer<typeof deriveManifestSchema>;

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
