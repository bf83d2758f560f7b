/**
 * The list entries of a crawl, by record: what every derived document is built from. An entry is kept as the JSON
 * text `stringifyJson` writes for it (taken before links are rewritten), so a derived document holds the source's
 * member order and numbers, and memory holds one string per record rather than a parsed tree.
 */
import { parseJson, stringifyJson } from '../json/parse-json.js';
import type { UrlSpace } from '../url/url-space.js';

export interface ListEntry {
  /** The collection whose record URL the entry's `links.self` is (it may differ from the list it came from). */
  readonly collection: string;
  readonly type: string;
  readonly id: string;
  /** The entry as written by stringifyJson; null when two lists hold different entries for one record. */
  readonly text: string | null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class EntryIndex {
  /** By `collection\0id` of the entry's own URL. */
  readonly #byRecord = new Map<string, ListEntry>();
  /** By `type\0id`: how a linkage finds its target. */
  readonly #byIdentity = new Map<string, ListEntry>();
  #parsed: { text: string; value: Record<string, unknown> } | undefined;

  /** The run's URLs: entries' links are resolved and located there. */
  constructor(readonly urls: UrlSpace) {}

  get size(): number {
    return this.#byRecord.size;
  }

  /** Takes the entries of a list page (its parsed JSON, before any link is rewritten). */
  addPage(pageUrl: string, document: unknown): void {
    const data = isPlainObject(document) ? document.data : undefined;
    if (!Array.isArray(data)) return;
    for (const item of data) this.#add(pageUrl, item);
  }

  #add(pageUrl: string, item: unknown): void {
    if (!isPlainObject(item) || typeof item.type !== 'string' || typeof item.id !== 'string') return;
    const links = item.links;
    if (!isPlainObject(links) || typeof links.self !== 'string') return;
    let self: string;
    try {
      self = this.urls.canonical(links.self, pageUrl);
    } catch {
      return;
    }
    const location = this.urls.locate(self);
    if (location.kind !== 'record') return;
    const text = stringifyJson(item);
    const key = `${location.collection}\u0000${location.id}`;
    const known = this.#byRecord.get(key);
    // The same record on two pages (the source changed between them): only identical entries are trusted.
    const entry: ListEntry = {
      collection: location.collection,
      type: item.type,
      id: item.id,
      text: known === undefined || known.text === text ? text : null,
    };
    this.#byRecord.set(key, entry);
    const identity = `${item.type}\u0000${item.id}`;
    const other = this.#byIdentity.get(identity);
    this.#byIdentity.set(identity, other === undefined || other.text === entry.text ? entry : { ...entry, text: null });
  }

  /** The entry of the record at `collection`/`id`. */
  record(collection: string, id: string): ListEntry | undefined {
    return this.#byRecord.get(`${collection}\u0000${id}`);
  }

  /** The entry a linkage `{type, id}` points to. */
  target(type: string, id: string): ListEntry | undefined {
    return this.#byIdentity.get(`${type}\u0000${id}`);
  }

  /** The entry's parsed value (the last one is kept: documents of one record are derived one after another). */
  parse(text: string): Record<string, unknown> {
    if (this.#parsed?.text !== text) this.#parsed = { text, value: parseJson(text) as Record<string, unknown> };
    return this.#parsed.value;
  }
}
