/**
 * Names for people, derived from the data: a field's (`provenance_uri` → "Provenance URI") and a collection's, from
 * the type of its records (`measuredquantityunits` of `MeasuredQuantityUnit` → "Measured quantity units"), or, for a
 * collection of community variants, from the collection their `root` relationships lead to ("Units: community
 * variants"). The API name is shown beside it once, on the collection's page. The user's names (`--names`,
 * format/human-names.ts) take the place of any of these.
 */
import type { CatalogueNames } from '../format/human-names.js';

const ACRONYMS = new Set(['uri', 'url', 'id', 'doi', 'iri', 'uuid', 'api', 'html', 'json', 'http', 'https']);

const titles = new Map<string, string>();

/**
 * A field or type name as words: `provenance_uri` → "Provenance URI", `requested_by_email` → "Requested by email";
 * a name that is not a plain identifier stays as it is. Asked for on every record, so each name is worded once.
 */
function fieldTitle(name: string): string {
  let title = titles.get(name);
  if (title === undefined) {
    title = wordsOf(name);
    // A source has a few field and type names; a hostile one could have many: the cache stays small.
    if (titles.size < 10_000) titles.set(name, title);
  }
  return title;
}

/**
 * How a record page names a relationship, read as "<name>: <targets>": the field's title, or a phrase where the
 * field's title reads badly before the target's name (`unit`: "Measured in: kelvin (Units)").
 */
const RELATION_PHRASES: Record<string, readonly [forward: string, reverse: string]> = {
  unit: ['Measured in', 'Unit of'],
};

/** A relationship's name on the page of the record it belongs to: "Successor", "Measured in". */
function relationTitle(name: string): string {
  return Object.hasOwn(RELATION_PHRASES, name) ? RELATION_PHRASES[name]![0] : fieldTitle(name);
}

/** A relationship's name on the page of a record it points at: "Successor of", "Unit of". */
function reverseTitle(name: string): string {
  return Object.hasOwn(RELATION_PHRASES, name) ? RELATION_PHRASES[name]![1] : `${fieldTitle(name)} of`;
}

function wordsOf(name: string): string {
  // Only a plain identifier is turned into words; any other name is shown as the source gives it.
  if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(name)) return name;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((w) => w !== '')
    .map((w) => (ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : w.toLowerCase()));
  if (words.length === 0) return name;
  const first = words[0]!;
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return words.join(' ');
}

/** A record type as people write it: `ActionCategory` → "Action category". */
export function typeTitle(type: string): string {
  return fieldTitle(type);
}

/** A type's words, lower-cased: `MeasuredQuantityUnit` → measured, quantity, unit. */
function typeWords(type: string): string[] {
  return type
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/**
 * A collection's name for people, from the type of its records: the type's words, the last one spelled as the
 * collection's name spells it (its plural), when the name is those words run together. Otherwise the name itself,
 * with `-` and `_` as spaces.
 */
function collectionTitle(collection: string, type: string | undefined): string {
  const plain = collection.replace(/[-_]+/g, ' ').trim();
  const fallback = plain === '' ? collection : plain.charAt(0).toUpperCase() + plain.slice(1);
  if (type === undefined) return fallback;
  const words = typeWords(type);
  if (words.length === 0) return fallback;
  const lead = words.slice(0, -1).join('');
  const last = words[words.length - 1]!;
  const name = collection.toLowerCase();
  const stem = last.replace(/(y|um|on)$/, '');
  if (!name.startsWith(lead) || !name.slice(lead.length).startsWith(stem) || /[^a-z]/.test(name)) return fallback;
  const title = [...words.slice(0, -1), name.slice(lead.length)].join(' ');
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** Only a map's own keys: a field called `constructor` or `__proto__` is a field like any other. */
function given(map: Readonly<Record<string, string>> | undefined, key: string): string | undefined {
  return map !== undefined && Object.hasOwn(map, key) ? map[key] : undefined;
}

/** The catalogue's names for people: the user's (`--names`) where given, else derived from the data as above. */
export class HumanNames {
  /** The user's names that some collection or field of the snapshot took, by API name. */
  readonly #used = { collections: new Set<string>(), fields: new Set<string>() };

  constructor(readonly names: CatalogueNames = {}) {}

  #collection(collection: string): string | undefined {
    const named = given(this.names.collections, collection);
    if (named !== undefined) this.#used.collections.add(collection);
    return named;
  }

  #field(name: string): string | undefined {
    const named = given(this.names.fields, name);
    if (named !== undefined) this.#used.fields.add(name);
    return named;
  }

  /** A collection's name, from the type of its records unless the user named it. */
  collection(collection: string, type: string | undefined): string {
    return this.#collection(collection) ?? collectionTitle(collection, type);
  }

  /** Whether the user named the collection (a community variant collection then keeps that name). */
  namesCollection(collection: string): boolean {
    return this.#collection(collection) !== undefined;
  }

  /** An attribute's name: "Provenance URI". */
  field(name: string): string {
    return this.#field(name) ?? fieldTitle(name);
  }

  /** Whether the user named the field (its page then shows the API name beside it). */
  namesField(name: string): boolean {
    return this.#field(name) !== undefined;
  }

  /** A relationship's name on its record's page: "Successor", "Measured in". */
  relation(name: string): string {
    return this.#field(name) ?? relationTitle(name);
  }

  /** A relationship's name on the page of a record it points at: "Successor of", "Unit of". */
  reverse(name: string): string {
    const named = this.#field(name);
    return named === undefined ? reverseTitle(name) : `As ${named}`;
  }

  /**
   * The user's names that nothing in the pages made so far took (a misspelt API name, a collection the snapshot
   * lacks), each as `collections."unitz"`, in the order the names were given.
   */
  unused(): string[] {
    const unused = (kind: 'collections' | 'fields') =>
      Object.keys(this.names[kind] ?? {})
        .filter((key) => !this.#used[kind].has(key))
        .map((key) => `${kind}.${JSON.stringify(key)}`);
    return [...unused('collections'), ...unused('fields')];
  }
}
