/**
 * A record of a snapshot, in the one shape every reader of the stored list pages sees it in (the catalogue, its
 * downloads, `export`, `diff`, the Changes page), with the rules they share: what is a record, what it is called,
 * and the order of records. The pages themselves are read by SnapshotReader (stored-records.ts).
 *
 * - A list page's `data` must be a list: a page whose `data` is one object, `null` or missing holds no records (the
 *   crawl counted none there, the complete collection takes none from it, and the report names the page).
 * - An entry is a record when it is an object with a `type` and an `id` that are strings, or finite numbers read as
 *   their text (the source's ids are numeric text, so `5` and `"5"` name the same record; the report names the
 *   number). Any other entry is not a record: shown by no page, counted by each reader that says so.
 * - Its label is the first of `term`, `name`, `title`, `display_name` that is a string with more than white space,
 *   as given; a record without one is shown by its id.
 * - Records sort by id (numeric ids as numbers, before any other id, which sort by code units), then by type.
 */
import * as z from 'zod';
import { byCodeUnits } from '../util/code-unit-order.js';
import { isObject } from '../json/is-object.js';
import { sourceNumberText } from '../json/parse-json.js';

/** One record of a list page. */
export const snapshotRecordSchema = z.object({
  type: z.string(),
  id: z.string(),
  /** `attributes` when it is an object, else empty. */
  attributes: z.record(z.string(), z.unknown()),
  /** `relationships` when it is an object, else empty; each value as the source gave it (maybe not an object). */
  relationships: z.record(z.string(), z.unknown()),
  /** `links.self` when it is a string, else null. */
  self: z.string().nullable(),
  /** The entry as the list page holds it. */
  listed: z.record(z.string(), z.unknown()),
});
export type SnapshotRecord = z.infer<typeof snapshotRecordSchema>;

/** A record's type and id, as a relationship's linkage names it. */
export interface RecordIdentity {
  type: string;
  id: string;
}

/** `container[key]` as a type or id: a string, or a finite number as the source wrote it; null for anything else. */
function keyOf(container: Record<string, unknown>, key: string): string | null {
  const value = container[key];
  if (typeof value === 'string') return value;
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  return sourceNumberText(container, key) ?? String(value);
}

/** A list entry's `links.self`: its string, or null when it has none. */
function selfLinkOf(entry: { links?: unknown }): string | null {
  const links = entry.links;
  return isObject(links) && typeof links.self === 'string' ? links.self : null;
}

/** A list entry as a record, or null when it is not one (no type or id to name it by). */
export function recordOf(entry: unknown): SnapshotRecord | null {
  if (!isObject(entry)) return null;
  const type = keyOf(entry, 'type');
  const id = keyOf(entry, 'id');
  if (type === null || id === null) return null;
  return {
    type,
    id,
    attributes: isObject(entry.attributes) ? entry.attributes : {},
    relationships: isObject(entry.relationships) ? entry.relationships : {},
    self: selfLinkOf(entry),
    listed: entry,
  };
}

/** The entries of a list document: its `data` when that is a list, else none. */
export function listEntries(document: unknown): readonly unknown[] {
  const data = isObject(document) ? document.data : undefined;
  return Array.isArray(data) ? (data as unknown[]) : [];
}

/** The `{type, id}` of each item of a relationship's linkage (one, a list, null), skipping what is not one. */
export function linkagesOf(data: unknown): RecordIdentity[] {
  const items = Array.isArray(data) ? (data as unknown[]) : data === null || data === undefined ? [] : [data];
  const found: RecordIdentity[] = [];
  for (const item of items) {
    if (!isObject(item)) continue;
    const type = keyOf(item, 'type');
    const id = keyOf(item, 'id');
    if (type !== null && id !== null) found.push({ type, id });
  }
  return found;
}

/** The attributes a record is called by, the first one given winning. */
export const LABEL_ATTRIBUTES = ['term', 'name', 'title', 'display_name'] as const;

/** What the record calls itself: the first label attribute with more than white space, as given; else null. */
export function namedLabel(record: Pick<SnapshotRecord, 'attributes'>): string | null {
  for (const key of LABEL_ATTRIBUTES) {
    const value = record.attributes[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return null;
}

/** A record's label for people: its named label, else its id. */
export function labelOf(record: Pick<SnapshotRecord, 'attributes' | 'id'>): string {
  return namedLabel(record) ?? record.id;
}

const NUMERIC = /^[0-9]+$/;

/** Ids in order: numeric ids as numbers, before any other, which sort by code units. */
export function byId(a: string, b: string): number {
  const numericA = NUMERIC.test(a);
  const numericB = NUMERIC.test(b);
  if (numericA && numericB) return a.length - b.length || byCodeUnits(a, b);
  if (numericA !== numericB) return numericA ? -1 : 1;
  return byCodeUnits(a, b);
}

/** Records (or linkages) in order: by id, then by type; 0 for the same type and id. */
export function byRecordOrder(a: RecordIdentity, b: RecordIdentity): number {
  return byId(a.id, b.id) || byCodeUnits(a.type, b.type);
}
