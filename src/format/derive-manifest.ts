/**
 * The manifest's `derive` member (docs/snapshot.md#the-manifest): how a derived crawl decided, per kind and collection,
 * what to derive and what to fetch, and why. Absent from a full crawl's manifest.
 */
import * as z from 'zod';

/**
 * The kinds of document a derived crawl derives (docs/derive.md): each is learned, sampled and, when a
 * sample differs, fetched in full per collection. List pages and the root index are always fetched.
 */
export const DOCUMENT_KINDS = [
  'record',
  'relationship-to-one',
  'relationship-to-many',
  'related-to-one',
  'related-to-many',
] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** Why a document is fetched although the lists led to it. */
export const FETCH_REASON_NAMES = [
  /** No list entry has this URL. */
  'not-in-lists',
  /** Two list pages give different entries for its record. */
  'conflicting-entries',
  /** Its relationship is given with links only, so only this document holds the linkage. */
  'links-only',
  /** A record it holds is in no list. */
  'target-not-in-lists',
  /** Its relationship is given with links only and its relationship document was not read. */
  'linkage-unknown',
  /** Its address is not one a list entry gives. */
  'not-derivable',
] as const;
export type FetchReason = (typeof FETCH_REASON_NAMES)[number];

const FETCHED_BECAUSE = ['sample', 'mismatch', 'unchecked', 'no-source', ...FETCH_REASON_NAMES] as const;

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
