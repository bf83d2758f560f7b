/**
 * The catalogue's index of the records its lists hold (build-catalogue.ts, pass 1): where each record has its page,
 * what it is called, which records point at it, and whether its page is written. A record is a number here; what
 * is kept per record and per reference is numbers in arrays, found by type and id, because at 38,000 records and
 * 100,000 references an object per reference made the catalogue the peak of a crawl's memory.
 */
import { flatKey } from '../util/flat-key.js';
import { recordPage, typedRecordPage } from '../format/catalogue-names.js';
import { grown } from '../util/typed-array.js';

/** A record that points at another one, and under which relationship. */
export interface Referrer {
  type: string;
  id: string;
  relationship: string;
}

/** A map by type, then by id: looked up without making a key string for each question. */
class ByTypeAndId<V> {
  readonly #byType = new Map<string, Map<string, V>>();

  get(type: string, id: string): V | undefined {
    return this.#byType.get(type)?.get(id);
  }

  set(type: string, id: string, value: V): void {
    let ids = this.#byType.get(type);
    if (ids === undefined) this.#byType.set(type, (ids = new Map<string, V>()));
    ids.set(id, value);
  }
}

export class CatalogueRecords {
  readonly #numbers = new ByTypeAndId<number>();
  readonly #types: string[] = [];
  readonly #typeNames = new Map<string, string>();
  readonly #ids: string[] = [];
  readonly #collections: string[] = [];
  readonly #labels: string[] = [];
  /** Per record: its page file; and every page file given, so that no two records share one. */
  readonly #pageFiles: string[] = [];
  readonly #givenPages = new Set<string>();
  /** Target → referrer number and relationship number, in turn. */
  readonly #referrers = new ByTypeAndId<number[]>();
  readonly #relationships: string[] = [];
  readonly #relationshipNumbers = new Map<string, number>();
  /** Per record: 0 no page yet, 1 its page is written. */
  #pages = new Uint8Array(0);

  /** Adds a record found in `collection`'s lists (the first collection that lists it keeps it); its number. */
  add(type: string, id: string, collection: string, label: string): number {
    const known = this.#numbers.get(type, id);
    if (known !== undefined) return known;
    const n = this.#types.length;
    this.#numbers.set(type, id, n);
    // One string per type, not one per record (each record's comes from parsing its page).
    let shared = this.#typeNames.get(type);
    if (shared === undefined) this.#typeNames.set(type, (shared = type));
    this.#types.push(shared);
    this.#ids.push(id);
    this.#collections.push(collection);
    this.#labels.push(label);
    // The first record with this id in the collection gets the plain name; one of another type, a name with both.
    let file = recordPage(collection, id);
    if (this.#givenPages.has(file)) file = typedRecordPage(collection, type, id);
    this.#givenPages.add(file);
    this.#pageFiles.push(file);
    return n;
  }

  /** Record `from` points at the record of `type` and `id` (listed or not) under `relationship`. */
  addReference(type: string, id: string, from: number, relationship: string): void {
    let name = this.#relationshipNumbers.get(relationship);
    if (name === undefined) {
      name = this.#relationships.length;
      this.#relationships.push(relationship);
      this.#relationshipNumbers.set(relationship, name);
    }
    const list = this.#referrers.get(type, id);
    if (list === undefined) this.#referrers.set(type, id, [from, name]);
    else list.push(from, name);
  }

  /** Where the record of `type` and `id` has its page, and what it is called; undefined when no list holds it. */
  find(type: string, id: string): { collection: string; label: string; page: string } | undefined {
    const n = this.#numbers.get(type, id);
    return n === undefined
      ? undefined
      : { collection: this.#collections[n]!, label: this.#labels[n]!, page: this.#pageFiles[n]! };
  }

  /**
   * The pages of the records that `wanted` names by collection and id (`flatKey(collection, id)`), each the first
   * record the lists gave with that id in the collection that keeps its page.
   */
  pagesByCollectionAndId(wanted: ReadonlySet<string>): Map<string, string> {
    const pages = new Map<string, string>();
    if (wanted.size === 0) return pages;
    for (let n = 0; n < this.#ids.length; n++) {
      const key = flatKey(this.#collections[n]!, this.#ids[n]!);
      if (wanted.has(key) && !pages.has(key)) pages.set(key, this.#pageFiles[n]!);
    }
    return pages;
  }

  /** The records that point at the record of `type` and `id`, in the order the lists gave them. */
  referrers(type: string, id: string): Referrer[] {
    const list = this.#referrers.get(type, id) ?? [];
    const referrers: Referrer[] = [];
    for (let i = 0; i < list.length; i += 2) {
      const from = list[i]!;
      referrers.push({
        type: this.#types[from]!,
        id: this.#ids[from]!,
        relationship: this.#relationships[list[i + 1]!]!,
      });
    }
    return referrers;
  }

  /**
   * Marks the page of the record of `type` and `id` written, when `collection` keeps it and it is not written yet;
   * whether it is to be written now.
   */
  takePage(type: string, id: string, collection: string): boolean {
    const n = this.#numbers.get(type, id);
    if (n === undefined || this.#collections[n] !== collection) return false;
    if (this.#pages.length < this.#types.length) this.#pages = grown(this.#pages, this.#types.length);
    if (this.#pages[n] !== 0) return false;
    this.#pages[n] = 1;
    return true;
  }
}
