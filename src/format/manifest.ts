/**
 * The manifest (docs/snapshot-format.md#manifest): what a snapshot is, where it came from, and with which options, in a
 * stable, documented form. The zod schema is the one definition; `verify` reads manifests through it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { namesSchema } from './human-names.js';
import { CATALOGUE_MODES } from './layout.js';
import { META_DIR } from '../store/sums.js';
import { deriveManifestSchema } from './derive-manifest.js';
import { LINK_MODES } from './rewrite-links.js';

export const MANIFEST_FORMAT_VERSION = 1;
export const MANIFEST_PATH = `${META_DIR}/manifest.json`;
export const REPORT_PATH = `${META_DIR}/report.json`;

export const COLLECTION_INDEX_MODES = ['complete', 'first-page'] as const;
export type CollectionIndexMode = (typeof COLLECTION_INDEX_MODES)[number];

const collectionCountsSchema = z.object({
  /** Records over the collection's list pages as crawled (the complete collection holds as many). */
  records: z.number().int().nonnegative(),
  /** List pages fetched. */
  pages: z.number().int().nonnegative(),
  /** Documents fetched below the collection: list pages, records, relationship and related documents. */
  documents: z.number().int().nonnegative(),
});
export type CollectionCounts = z.infer<typeof collectionCountsSchema>;

/**
 * Every field is documented in docs/snapshot.md#the-manifest. Everything here depends only on the source's responses,
 * the options below and the tool's version, except `createdAt` and `changes` (what --out held before): two crawls of
 * one source state into new folders differ in nothing else.
 */
export const manifestSchema = z.object({
  format: z.literal('cv-snapshot'),
  /** Version of the snapshot format (this manifest, the layout, the metadata files); raised on a breaking change. */
  formatVersion: z.literal(MANIFEST_FORMAT_VERSION),
  /** The package that wrote the snapshot (package.json's name and version, as in the User-Agent). */
  tool: z.object({ name: z.string(), version: z.string() }),
  /**
   * Where the snapshot came from: the canonical root URL, and the root index's response headers that identify the
   * source's state, or null when the source does not send them. The root index's `Date` header is deliberately
   * not recorded: it is the moment of the response, not the state of the source, so it would make two crawls of
   * the same state differ beyond `createdAt` (and their archives differ even with SOURCE_DATE_EPOCH set). The
   * moment of the crawl is `createdAt`.
   */
  source: z.object({
    root: z.string(),
    etag: z.string().nullable(),
    lastModified: z.string().nullable(),
  }),
  /**
   * SOURCE_DATE_EPOCH when set, else the crawl's start (whole seconds, UTC, ISO 8601). Also every mtime `pack`
   * writes.
   */
  createdAt: z.string(),
  /**
   * The options that shape the snapshot's content. Options that change only how it is fetched (concurrency,
   * retries, timeout, rate, size and document limits) are not recorded, so they cannot change its bytes.
   */
  options: z.object({
    links: z.enum(LINK_MODES as unknown as [string, ...string[]]),
    baseUrl: z.string().nullable(),
    collectionIndex: z.enum(COLLECTION_INDEX_MODES),
    /** Whether the pages for people were built (absent in manifests written before the catalogue existed). */
    catalogue: z.enum(CATALOGUE_MODES).optional(),
    strict: z.boolean(),
    /** The extra request headers, values redacted (`Authorization: ***`): values are never recorded. */
    headers: z.array(z.string()),
    /**
     * True when the crawl recorded every exchange in WARC files in `_cv-snapshot/` (`crawl --warc`,
     * docs/capture.md); absent otherwise.
     */
    warc: z.literal(true).optional(),
    /**
     * The user's names for people of collections and fields (`--names`), which the catalogue shows; absent when none
     * were given, so that `cv-snapshot catalogue` rebuilds the same pages.
     */
    names: namesSchema.optional(),
  }),
  /**
   * True when the snapshot was published anyway (--allow-partial) although documents could not be fetched
   * (`missing`) or the pages of a collection disagreed every time they were fetched (`shifted`).
   */
  partial: z.boolean(),
  /** Canonical URLs of the documents a partial snapshot lacks, sorted. */
  missing: z.array(z.string()),
  /**
   * Collections whose pages disagreed every time they were fetched, published as fetched (--allow-partial), sorted:
   * each may hold some of its records twice and miss others. Absent when none (and in manifests written before).
   */
  shifted: z.array(z.string()).optional(),
  /** Documents fetched from the source (the complete collections built from them are not counted). */
  documents: z.number().int().nonnegative(),
  /** Counts per collection, by collection name (sorted). */
  collections: z.record(z.string(), collectionCountsSchema),
  /** Validation findings by severity; each finding is in report.json. */
  validation: z.object({
    errors: z.number().int().nonnegative(),
    warnings: z.number().int().nonnegative(),
  }),
  /** With `crawl --derive`: what was derived, what was fetched and why (absent from a full crawl's manifest). */
  derive: deriveManifestSchema.optional(),
  /**
   * What the catalogue's Changes page compares this snapshot with: the snapshot --out held before it was published
   * (its source's root and its `createdAt`), or null when there was none to compare with (the first snapshot in
   * that folder). Absent when the snapshot has no catalogue, and in manifests written before the Changes page.
   */
  changes: z.object({ against: z.object({ root: z.string(), createdAt: z.string() }).nullable() }).optional(),
});
export type Manifest = z.infer<typeof manifestSchema>;

export function serializeManifest(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

export async function readManifest(dir: string): Promise<Manifest> {
  const text = await readFile(path.join(dir, ...MANIFEST_PATH.split('/')), 'utf8');
  return manifestSchema.parse(JSON.parse(text));
}
