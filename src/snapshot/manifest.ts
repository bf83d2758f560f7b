/**
 * The manifest (DESIGN.md §7): what a snapshot is, where it came from, and with which options, in a stable,
 * documented form. The zod schema is the one definition; `verify` reads manifests through it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { META_DIR } from './layout.js';
import { LINK_MODES } from './rewrite-links.js';

export const MANIFEST_FORMAT_VERSION = 1;
export const MANIFEST_PATH = `${META_DIR}/manifest.json`;
export const REPORT_PATH = `${META_DIR}/report.json`;
export const SUMS_PATH = `${META_DIR}/SHA256SUMS`;

export const COLLECTION_INDEX_MODES = ['complete', 'first-page'] as const;
export type CollectionIndexMode = (typeof COLLECTION_INDEX_MODES)[number];

const collectionCountsSchema = z.object({
  records: z.number().int().nonnegative(),
  pages: z.number().int().nonnegative(),
  documents: z.number().int().nonnegative(),
});
export type CollectionCounts = z.infer<typeof collectionCountsSchema>;

export const manifestSchema = z.object({
  format: z.literal('cv-snapshot'),
  formatVersion: z.literal(MANIFEST_FORMAT_VERSION),
  tool: z.object({ name: z.string(), version: z.string() }),
  source: z.object({
    root: z.string(),
    /** Response headers of the root index that identify the source's state, where the source sends them. */
    etag: z.string().nullable(),
    lastModified: z.string().nullable(),
  }),
  /** SOURCE_DATE_EPOCH when set, else the crawl's start (whole seconds, UTC). */
  createdAt: z.string(),
  options: z.object({
    links: z.enum(LINK_MODES as unknown as [string, ...string[]]),
    baseUrl: z.string().nullable(),
    collectionIndex: z.enum(COLLECTION_INDEX_MODES),
    strict: z.boolean(),
    /** The extra request headers, values redacted (`Authorization: ***`): values are never recorded. */
    headers: z.array(z.string()),
  }),
  /** True when documents could not be fetched and the snapshot was published anyway (--allow-partial). */
  partial: z.boolean(),
  /** Canonical URLs of the documents a partial snapshot lacks. */
  missing: z.array(z.string()),
  documents: z.number().int().nonnegative(),
  collections: z.record(z.string(), collectionCountsSchema),
  validation: z.object({
    errors: z.number().int().nonnegative(),
    warnings: z.number().int().nonnegative(),
  }),
});
export type Manifest = z.infer<typeof manifestSchema>;

export function serializeManifest(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

export async function readManifest(dir: string): Promise<Manifest> {
  const text = await readFile(path.join(dir, ...MANIFEST_PATH.split('/')), 'utf8');
  return manifestSchema.parse(JSON.parse(text));
}

/** `sha256sum` format, one line per file, sorted by path; paths are relative to the snapshot directory. */
export function formatSums(files: Array<[string, { sha256: string }]>): string {
  return files.map(([file, { sha256 }]) => `${sha256}  ${file}\n`).join('');
}

export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (match) sums.set(match[2]!, match[1]!);
  }
  return sums;
}
