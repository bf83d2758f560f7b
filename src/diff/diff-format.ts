/**
 * The result of `diff`, as `--format json` prints it: the zod schema is the one definition of the format that
 * scripts rely on (docs/diff.md). Stable: the same two snapshots give the same bytes; collections
 * are sorted by name, records by id (numerically when both ids are numbers) then type, changed fields by name.
 * A member the format adds later is added at the end of its object and raises no version; a change that could break
 * a script raises `formatVersion`.
 */
import * as z from 'zod';
import { prettyJson } from './exact-values.js';

export const DIFF_FORMAT_VERSION = 1;

/** A relationship target: JSON:API's resource identifier without its meta. */
const identifier = z.object({ type: z.string(), id: z.string() });
export type Identifier = z.infer<typeof identifier>;

/** What a relationship's `data` holds: null, one identifier, or a list of them. */
const linkage = z.union([z.null(), identifier, z.array(identifier)]);
export type Linkage = z.infer<typeof linkage>;

/** One side of the comparison: where the snapshot came from (its manifest) and how many records it holds. */
const side = z.object({
  root: z.string(),
  createdAt: z.string(),
  tool: z.string(),
  etag: z.string().nullable(),
  lastModified: z.string().nullable(),
  /**
   * Made with --allow-partial: documents are missing, or the pages of a collection disagreed every time they were
   * fetched (`shifted`), so records may be missing too.
   */
  partial: z.boolean(),
  records: z.number().int().nonnegative(),
  /** The collections whose pages disagreed every time they were fetched (the manifest's `shifted`), sorted. */
  shifted: z.array(z.string()),
});

/** A record added or removed: its identity and, to read it by, its term (or name) and status. */
const recordRef = z.object({
  type: z.string(),
  id: z.string(),
  /** `attributes.term`, else `attributes.name`, else null. */
  label: z.string().nullable(),
  /** `attributes.status` (spec 3), or null when the record has none. */
  status: z.string().nullable(),
});
export type RecordRef = z.infer<typeof recordRef>;

/** `old`/`new` are omitted when the attribute is absent on that side. */
const attributeChange = z.object({ name: z.string(), old: z.unknown().optional(), new: z.unknown().optional() });
export type AttributeChange = z.infer<typeof attributeChange>;

/**
 * A relationship whose targets changed (compared by type and id, never by link; the order of a to-many list does not
 * count). `old`/`new` are the `data` members, omitted when the relationship or its data is absent on that side;
 * `added` and `removed` are the targets gained and lost.
 */
const relationshipChange = z.object({
  name: z.string(),
  old: linkage.optional(),
  new: linkage.optional(),
  added: z.array(identifier),
  removed: z.array(identifier),
});
export type RelationshipChange = z.infer<typeof relationshipChange>;

const recordChange = z.object({
  type: z.string(),
  id: z.string(),
  /** The label in the new snapshot. */
  label: z.string().nullable(),
  attributes: z.array(attributeChange),
  relationships: z.array(relationshipChange),
});
export type RecordChange = z.infer<typeof recordChange>;

/** The `status` attribute changed, e.g. PENDING → ACCEPTED (spec 3); also listed under `changed`. */
const statusChange = z.object({
  type: z.string(),
  id: z.string(),
  label: z.string().nullable(),
  old: z.string().nullable(),
  new: z.string().nullable(),
});

/** The term (or, for records without one, the name) changed, same type and id; also listed under `changed`. */
const rename = z.object({ type: z.string(), id: z.string(), old: z.string(), new: z.string() });

const COLLECTION_CHANGES = ['added', 'removed', 'changed', 'unchanged'] as const;

const collectionDiff = z.object({
  name: z.string(),
  /** `added`/`removed`: the collection is in only one snapshot; then every record of it is listed as added/removed. */
  change: z.enum(COLLECTION_CHANGES),
  /** Records in each snapshot; null on the side that lacks the collection. */
  records: z.object({ old: z.number().int().nonnegative().nullable(), new: z.number().int().nonnegative().nullable() }),
  added: z.array(recordRef),
  removed: z.array(recordRef),
  changed: z.array(recordChange),
  statusChanges: z.array(statusChange),
  renamed: z.array(rename),
  /**
   * Records that only one snapshot holds while the other is partial and lacks list pages of this collection, or its
   * pages shifted: they may be on the pages it did not fetch, or on none, so they are neither `added` nor `removed`.
   * A collection that a partial snapshot did not fetch at all is `changed`, not `added` or `removed`, with every
   * record of the other here.
   */
  notFetched: z.array(recordRef),
  /** The list pages of this collection that each snapshot's manifest names as missing (empty when complete). */
  missingPages: z.object({ old: z.array(z.string()), new: z.array(z.string()) }),
  /**
   * Elements of this collection's lists in each snapshot without a string `type` and `id` (0 on a side that lacks
   * the collection): they cannot be matched record by record, so they are compared as a whole (without `links` and
   * `meta`, relationships by their targets). `same`: both snapshots hold exactly the same ones; when not, the
   * collection is `changed` and the diff not `identical`, though what changed in them cannot be told.
   */
  unmatched: z.object({
    old: z.number().int().nonnegative(),
    new: z.number().int().nonnegative(),
    same: z.boolean(),
  }),
});
export type CollectionDiff = z.infer<typeof collectionDiff>;

const tally = z.object({ added: z.number().int(), removed: z.number().int(), changed: z.number().int() });

export const snapshotDiffSchema = z.object({
  format: z.literal('cv-snapshot-diff'),
  formatVersion: z.literal(DIFF_FORMAT_VERSION),
  old: side,
  new: side,
  /**
   * No collection added or removed, no record added, removed, changed or not fetched, and the same `unmatched`
   * elements in each collection. The snapshots' times, roots, link modes and tool versions are not compared: two
   * crawls of the same state are identical.
   */
  identical: z.boolean(),
  summary: z.object({
    collections: tally.extend({ unchanged: z.number().int() }),
    /**
     * `notFetched`: records listed under a collection's `notFetched`; `unmatched`: elements counted under the
     * `unmatched` of the collections where they are not the same, both snapshots together.
     */
    records: tally.extend({ notFetched: z.number().int(), unmatched: z.number().int() }),
    statusChanges: z.number().int(),
    renamed: z.number().int(),
  }),
  /** Every collection of either snapshot, sorted by name. */
  collections: z.array(collectionDiff),
});
export type SnapshotDiff = z.infer<typeof snapshotDiffSchema>;
export type DiffSide = z.infer<typeof side>;

/** The diff as JSON, indented by two spaces; attribute values keep the source's number text. */
export function formatDiffJson(diff: SnapshotDiff): string {
  return `${prettyJson(diff)}\n`;
}
