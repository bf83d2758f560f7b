/**
 * The list entries of a crawl, by record: what every derived document is built from. An entry is kept as the JSON
 * text `stringifyJson` writes for it (taken before links are rewritten), so a derived document holds the source's
 * member order and numbers; the texts are kept outside the heap (entry-texts.ts), and the maps hold only their handles.
 */
import { isObject } from '../json/is-object.js';
import { parseJson, stringifyJson } from '../json/parse-json.js';
import type { UrlSpace } from '../url/url-space.js';
import { EntryTexts } from './entry-texts.js';

export interface ListEntry {
  /** The entry as written by stringifyJson; null when two lists hold different entries for one record. */
  readonly text: string | null;
}

/** Numbers by two strings (a collection or type, then an id). */
class NestedMap {
  readonly #outer = new Map<string, Map<string, number>>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  get(first: string, second: string): number | undefined {
    return this.#outer.get(first)?.get(second);
  }

  set(first: string, second: string, value: number): void {
    let inner = this.#outer.get(first);
    if (inner === undefined) this.#outer.set(first, (inner = new Map<string, number>()));
    if (!inner.has(second)) this.#size += 1;
    inner.set(second, value);
  }

  clear(): void {
    this.#outer.clear();
    this.#size = 0;
  }
}

/** A text's handle in EntryTexts, or this when two lists hold different entries. */
const CONFLICT = -1;

export class EntryIndex {
  /**
   * By collection and id of the entry's own URL: the handle of its text. Maps by collection then id, not by a key
   * made of both: such keys were a string and two concatenations per record, for nothing.
   */
  readonly #byRecord = new NestedMap();
  /** By type and id: how a linkage finds its target. */
  readonly #byIdentity = new NestedMap();
  readonly #texts: EntryTexts;
  /** The last entry `record` gave, and the last one parsed: a record's documents are derived one after another. */
  #last: { handle: number; entry: ListEntry } | undefined;
  #parsed: { text: string; value: Record<string, unknown> } | undefined;

  /**
   * The run's URLs: entries' links are resolved and located there. `texts` keeps the entries' texts (by default in
   * memory; a derived crawl gives it a scratch file).
   */
  constructor(
    readonly urls: UrlSpace,
    texts: EntryTexts = new EntryTexts(),
  ) {
    this.#texts = texts;
  }

  get size(): number {
    return this.#byRecord.size;
  }

  /** Takes the entries of a list page (its parsed JSON, before any link is rewritten). */
  addPage(pageUrl: string, document: unknown): void {
    const data = isObject(document) ? document.data : undefined;
    if (!Array.isArray(data)) return;
    for (const item of data) this.#add(pageUrl, item);
  }

  #add(pageUrl: string, item: unknown): void {
    if (!isObject(item) || typeof item.type !== 'string' || typeof item.id !== 'string') return;
    const links = item.links;
    if (!isObject(links) || typeof links.self !== 'string') return;
    let self: string;
    try {
      self = this.urls.canonical(links.self, pageUrl);
    } catch {
      return;
    }
    const location = this.urls.locate(self);
    if (location.kind !== 'record') return;
    const text = stringifyJson(item);
    const known = this.#byRecord.get(location.collection, location.id);
    // The same record on two pages (the source changed between them): only identical entries are trusted.
    const handle = known === undefined ? this.#texts.add(text) : this.#same(known, text) ? known : CONFLICT;
    this.#byRecord.set(location.collection, location.id, handle);
    const other = this.#byIdentity.get(item.type, item.id);
    if (other === undefined) this.#byIdentity.set(item.type, item.id, handle);
    else if (!this.#same(other, handle === CONFLICT ? null : text)) this.#byIdentity.set(item.type, item.id, CONFLICT);
  }

  /** Whether the text kept at `handle` is `text` (a conflict is the same as a conflict only). */
  #same(handle: number, text: string | null): boolean {
    if (handle === CONFLICT || text === null) return handle === CONFLICT && text === null;
    return this.#texts.get(handle) === text;
  }

  #entry(handle: number | undefined): ListEntry | undefined {
    if (handle === undefined) return undefined;
    return { text: handle === CONFLICT ? null : this.#texts.get(handle) };
  }

  /** The entry of the record at `collection`/`id`. */
  record(collection: string, id: string): ListEntry | undefined {
    const handle = this.#byRecord.get(collection, id);
    if (handle !== undefined && this.#last?.handle === handle) return this.#last.entry;
    const entry = this.#entry(handle);
    if (handle !== undefined) this.#last = { handle, entry: entry! };
    return entry;
  }

  /** The entry a linkage `{type, id}` points to. */
  target(type: string, id: string): ListEntry | undefined {
    return this.#entry(this.#byIdentity.get(type, id));
  }

  /** The entry's parsed value (the last one is kept: documents of one record are derived one after another). */
  parse(text: string): Record<string, unknown> {
    if (this.#parsed?.text !== text) this.#parsed = { text, value: parseJson(text) as Record<string, unknown> };
    return this.#parsed.value;
  }

  /** Lets go of the entries (and the texts' file). */
  close(): void {
    this.#byRecord.clear();
    this.#byIdentity.clear();
    this.#last = undefined;
    this.#parsed = undefined;
    this.#texts.close();
  }
}
