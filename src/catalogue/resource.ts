/**
 * The records of a stored list page as the catalogue reads them. A list is what the source served, valid JSON:API or
 * not (the crawl mirrors it and reports what is wrong): an entry may be `null`, a string or an array, its members
 * `null` or of the wrong kind, its id a number. The catalogue shows what it can and never stops on such an entry:
 * every member is checked here, once, and the pages see only the shape below.
 */
import { isObject } from '../json/is-object.js';
import { selfLinkOf } from '../format/links-only.js';

/** A list entry with a type and an id (strings, or numbers read as their text), its members checked. */
export interface Resource {
  type: string;
  id: string;
  /** `attributes` when it is an object, else empty. */
  attributes: Record<string, unknown>;
  /** `relationships` when it is an object, else empty; each value as the source gave it (maybe not an object). */
  relationships: Record<string, unknown>;
  /** `links.self` when it is a string. */
  self: string | null;
  /** The entry as listed. */
  listed: Record<string, unknown>;
}

function key(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}

/** A list entry as a record, or null when it is not one (no type or id to name it by). */
function asResource(entry: unknown): Resource | null {
  if (!isObject(entry)) return null;
  const type = key(entry.type);
  const id = key(entry.id);
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

/**
 * The records of a list document's text, and how many entries are not records. A `data` that is one object rather
 * than a list is read as a list of one; text that is not JSON gives no records.
 */
export function listRecords(text: string): { records: Resource[]; skipped: number } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { records: [], skipped: 0 };
  }
  const data = isObject(doc) ? doc.data : undefined;
  const entries = Array.isArray(data) ? (data as unknown[]) : isObject(data) ? [data] : [];
  const records: Resource[] = [];
  for (const entry of entries) {
    const record = asResource(entry);
    if (record !== null) records.push(record);
  }
  return { records, skipped: entries.length - records.length };
}

/** The `{type, id}` pairs of a relationship's linkage (one, a list, null), skipping what is not one. */
export function linkages(data: unknown): Array<{ type: string; id: string }> {
  const items = Array.isArray(data) ? (data as unknown[]) : data === null || data === undefined ? [] : [data];
  return items.flatMap((item) => {
    if (!isObject(item)) return [];
    const type = key(item.type);
    const id = key(item.id);
    return type !== null && id !== null ? [{ type, id }] : [];
  });
}
