/**
 * The records of a snapshot's collections, for the queries `cv-snapshot serve` answers (docs/architecture.md#serve).
 * Read through the layout, lazily, once per collection: the complete collection file, or every page file when the
 * snapshot was made with `--collection-index first-page`. The schema a query is checked against (attributes,
 * relationships and their target types) is learnt from the records themselves.
 */
import { PAGE_SEGMENT, INDEX_FILE, type Layout } from '../format/layout.js';
import { isObject, objectOrUndefined } from '../json/is-object.js';
import type { CollectionSchema, QueryCollection, RecordAccess, RelationshipKind } from '../jsonapi/query-run.js';
import type { ListPages } from './list-pages.js';
import { parseStored, RefusedFileError, UnparsableFileError } from './snapshot-files.js';
import { storedList } from './stored-json.js';

/** A resource object as stored (its links already rewritten by the crawl). */
export interface StoredResource {
  readonly type?: unknown;
  readonly id?: unknown;
  readonly attributes?: Record<string, unknown>;
  readonly relationships?: Record<string, { data?: unknown } | undefined>;
}

export interface SnapshotCollection extends QueryCollection<StoredResource> {
  /** Records per page of the source (from its first page). */
  readonly pageSize: number;
}

interface FirstPage {
  /** Page 1 as stored, and the page numbers stored. */
  readonly records: readonly StoredResource[];
  readonly pages: number;
  readonly pageNumbers: readonly number[];
}

export interface CollectionFiles {
  /** Reads a file of the snapshot (relative POSIX path). */
  read(file: string): Promise<{ readonly body: Buffer }>;
  /** True when the file is one of the snapshot's. */
  has(file: string): boolean;
  /** Every file of the snapshot. */
  files(): Iterable<string>;
}

function dataOf(document: unknown): StoredResource[] {
  const data = (document as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data.filter(isObject) : [];
}

function pagesOf(document: unknown): number | null {
  const pages = (document as { meta?: { pagination?: { pages?: unknown } } } | null)?.meta?.pagination?.pages;
  return typeof pages === 'number' && Number.isSafeInteger(pages) && pages >= 1 ? pages : null;
}

function schemaOf(records: readonly StoredResource[]): CollectionSchema {
  const attributes = new Set<string>();
  const relationships = new Map<string, { kind: RelationshipKind; targetType: string | null }>();
  for (const record of records) {
    for (const name of Object.keys(objectOrUndefined(record.attributes) ?? {})) attributes.add(name);
    for (const [name, value] of Object.entries(objectOrUndefined(record.relationships) ?? {})) {
      const known = relationships.get(name) ?? { kind: 'links-only' as RelationshipKind, targetType: null };
      const relationship = objectOrUndefined(value);
      if (relationship !== undefined && 'data' in relationship) {
        const data = relationship.data;
        known.kind = Array.isArray(data) ? 'to-many' : known.kind === 'to-many' ? 'to-many' : 'to-one';
        const first = (Array.isArray(data) ? data[0] : data) as { type?: unknown } | null | undefined;
        if (known.targetType === null && typeof first?.type === 'string') known.targetType = first.type;
      }
      relationships.set(name, known);
    }
  }
  return { attributes, relationships, open: records.length === 0 };
}

function idOf(record: StoredResource): string {
  return typeof record.id === 'string' ? record.id : String(record.id);
}

/** How the query engine reads stored resource objects. */
export function storedAccess(
  collectionOfType: (type: string) => SnapshotCollection | undefined,
): RecordAccess<StoredResource> {
  return {
    id: idOf,
    attribute: (record, name) => {
      const attributes = objectOrUndefined(record.attributes);
      // Own members only: a record without `constructor` does not hold Object's.
      return attributes !== undefined && Object.hasOwn(attributes, name) ? attributes[name] : undefined;
    },
    targets: (record, name) => {
      const relationships = objectOrUndefined(record.relationships);
      const value = relationships !== undefined && Object.hasOwn(relationships, name) ? relationships[name] : undefined;
      const relationship = objectOrUndefined(value);
      if (relationship === undefined || !('data' in relationship)) return null;
      const data = relationship.data;
      if (data === null || data === undefined) return [];
      const linkages = Array.isArray(data) ? data : [data];
      return linkages.flatMap((linkage) => {
        const id = (linkage as { id?: unknown } | null)?.id;
        return typeof id === 'string' || typeof id === 'number' ? [String(id)] : [];
      });
    },
    collectionOfType,
  };
}

/** Resource type → the collection that holds it; and the first pages that could not be read to tell. */
interface TypeIndex {
  index: Map<string, string>;
  unreadable: Error[];
}

export class SnapshotCollections {
  private readonly firstPages = new Map<string, Promise<FirstPage>>();
  private readonly loaded = new Map<string, Promise<SnapshotCollection>>();
  private readonly settled = new Map<string, SnapshotCollection>();
  private typeIndex: Promise<TypeIndex> | undefined;

  constructor(
    private readonly layout: Layout,
    private readonly files: CollectionFiles,
    /** The collection names the root index lists. */
    readonly names: ReadonlySet<string>,
    private readonly completeIndex: boolean,
    private readonly listPages: ListPages,
  ) {}

  /** The directory of a collection's files, e.g. `sms/cv/api/v1/units/`. */
  private dirOf(collection: string): string {
    return this.layout.collectionIndex(collection).file.slice(0, -INDEX_FILE.length);
  }

  /** A stored list document, its records tied to their stored bytes (stored-json.ts). */
  private async readList(file: string): Promise<unknown> {
    return parseStored(file, (await this.files.read(file)).body, storedList);
  }

  /** The stored file of page n of a collection. */
  pageFile(collection: string, page: number): string {
    return `${this.dirOf(collection)}${PAGE_SEGMENT}/${page}/${INDEX_FILE}`;
  }

  /** Stored page numbers of a collection, ascending (from the snapshot's file list). */
  pageNumbers(collection: string): readonly number[] {
    return this.listPages.numbers(this.dirOf(collection).slice(0, -1));
  }

  private firstPage(collection: string): Promise<FirstPage> {
    let first = this.firstPages.get(collection);
    if (first === undefined) {
      first = (async () => {
        const pageNumbers = this.pageNumbers(collection);
        const file = this.pageFile(collection, pageNumbers[0] ?? 1);
        // A collection the root index names with no page stored (a partial snapshot, or one changed since).
        if (!this.files.has(file)) throw new RefusedFileError(file, null);
        const document = await this.readList(file);
        return { records: dataOf(document), pages: pagesOf(document) ?? Math.max(1, pageNumbers.length), pageNumbers };
      })();
      this.firstPages.set(collection, first);
    }
    return first;
  }

  /** The collection with every record, loaded once. */
  get(collection: string): Promise<SnapshotCollection> {
    let entry = this.loaded.get(collection);
    if (entry === undefined) {
      entry = this.load(collection);
      this.loaded.set(collection, entry);
      // A failed read is tried again on the next request rather than remembered.
      entry.catch(() => this.loaded.delete(collection));
    }
    return entry;
  }

  private async load(collection: string): Promise<SnapshotCollection> {
    const first = await this.firstPage(collection);
    const indexFile = this.layout.collectionIndex(collection).file;
    let records: StoredResource[];
    if (this.completeIndex && this.files.has(indexFile)) {
      records = dataOf(await this.readList(indexFile));
    } else {
      records = [];
      for (const page of first.pageNumbers) {
        // One at a time: a spread of a page's records as arguments overflows the stack past about 100,000.
        for (const record of dataOf(await this.readList(this.pageFile(collection, page)))) records.push(record);
      }
    }
    const byId = new Map(records.map((record) => [idOf(record), record]));
    const type = typeof records[0]?.type === 'string' ? records[0].type : '';
    // The source's page size: page 1's length when there are more pages; else page 1 held them all.
    const pageSize = first.pages > 1 ? Math.max(1, first.records.length) : Math.max(1, records.length);
    const loaded = {
      name: collection,
      type,
      schema: schemaOf(records),
      records,
      byId: (id: string) => byId.get(id),
      pageSize,
    };
    this.settled.set(collection, loaded);
    return loaded;
  }

  /**
   * Resource type → collection name, from each collection's first page (read once, when a query needs it). A first
   * page that cannot be read (a damaged tree) leaves its collection out and is kept as `unreadable`, so that a query
   * on another collection is not refused for it unless it needs a type that collection may hold.
   */
  private types(): Promise<TypeIndex> {
    this.typeIndex ??= (async () => {
      const index = new Map<string, string>();
      const unreadable: Error[] = [];
      for (const name of this.names) {
        let records: readonly StoredResource[];
        try {
          ({ records } = await this.firstPage(name));
        } catch (error) {
          if (!(error instanceof UnparsableFileError || error instanceof RefusedFileError)) throw error;
          unreadable.push(error);
          continue;
        }
        const type = records[0]?.type;
        if (typeof type === 'string' && !index.has(type)) index.set(type, name);
      }
      return { index, unreadable };
    })();
    return this.typeIndex;
  }

  /**
   * Loads the collections that hold the targets of `relationships` of `collection`. A target type no readable
   * collection holds, while a collection's first page cannot be read, throws that page's error: the answer would
   * depend on it.
   */
  async loadTargets(collection: SnapshotCollection, relationships: Iterable<string>): Promise<void> {
    const { index, unreadable } = await this.types();
    const [firstUnreadable] = unreadable;
    for (const name of relationships) {
      const targetType = collection.schema.relationships.get(name)?.targetType;
      if (targetType == null) continue;
      const target = index.get(targetType);
      if (target !== undefined) await this.get(target);
      else if (firstUnreadable !== undefined) throw firstUnreadable;
    }
  }

  /** A loaded collection by type (after `loadTargets`). */
  loadedOfType(type: string): SnapshotCollection | undefined {
    for (const collection of this.settled.values()) if (collection.type === type) return collection;
    return undefined;
  }
}
