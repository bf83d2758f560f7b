/**
 * The one reader of a snapshot's records: the catalogue (at finalize and in `cv-snapshot catalogue`), its
 * downloads, `export`, `diff` and the Changes page all read the stored list pages through it, in the shape and
 * with the rules of records.ts.
 *
 *     const reader = new SnapshotReader(name, dir, manifest);   // or SnapshotReader.open(name, dir)
 *     for (const collection of reader.collections()) {
 *       for (const page of reader.pages(collection)) {           // page.records, page.others, page.file
 *         for (const record of page.records) reader.relationshipData(collection, record, 'successor');
 *       }
 *     }
 *
 * - A collection's list pages are the files the layout gives for pages 1 to n, n the pages its manifest counts
 *   plus those of its pages a partial snapshot lacks (the manifest's `missing`), which are passed over: nothing is
 *   probed. A page file that is absent from a snapshot that lacks nothing is an error.
 * - Every file is read as `verify` reads one (safe-read.ts): never through a symbolic link, never a pipe or
 *   device, at most a bounded size, JSON nested too deep refused, numbers kept as the source wrote them. A file
 *   that cannot be read stops the reader with a SnapshotReadError that names it and says to run `verify`.
 * - A relationship given with links only (spec 2.4's `successor`) leads where its stored documents say
 *   (links-only.ts): `relationshipData` answers for it as for one given with `data`.
 *
 * The reader keeps one page in memory at a time, and a few thousand recent answers of the links-only documents.
 */
import { byCodeUnits } from '../util/code-unit-order.js';
import { CvSnapshotError } from '../util/errors.js';
import { flatKey } from '../util/flat-key.js';
import { isObject } from '../json/is-object.js';
import { locate } from '../url/api-location.js';
import { Memo } from '../url/memo.js';
import { Layout } from './layout.js';
import { LinksOnlyReader, recordUris, type RecordUris } from './links-only.js';
import { MANIFEST_PATH, type Manifest } from './manifest.js';
import { shiftedOf } from './partial.js';
import { readSnapshotManifest } from './read-manifest.js';
import { CHECKED_DIRS, readSnapshotJson, UnusableFileError } from './safe-read.js';
import { recordOf, type SnapshotRecord } from './records.js';
import { StoredLinks } from './rewrite-links.js';

/** A file of the snapshot cannot be read: the sentence names it and says to run `verify`. */
export class SnapshotReadError extends CvSnapshotError {
  constructor(
    readonly snapshot: string,
    readonly file: string,
    why: string,
  ) {
    super(`${snapshot}: ${file} ${why}. Run cv-snapshot verify ${snapshot} to see what else is wrong with it.`);
  }
}

/** A list page is one page of the source: far below this. */
const MAX_PAGE_BYTES = 256 << 20;

/** One stored list page of a collection, as read. */
export interface ListPage {
  collection: string;
  /** Its page number, from 1. */
  page: number;
  /** Its canonical URL at the source, and its file in the snapshot. */
  url: string;
  file: string;
  /** Its `data` when that is a list, else empty (records.ts: listEntries). */
  entries: readonly unknown[];
  /** The entries that are records, in the page's order. */
  records: SnapshotRecord[];
  /** The positions in `entries` of those that are not records (no type or id). */
  others: number[];
}

/** Where a collection's list pages are, in page order, and how many of them the snapshot lacks. */
export interface PageFiles {
  pages: Array<{ page: number; url: string; file: string }>;
  lacking: number;
}

export class SnapshotReader {
  readonly layout: Layout;
  /** How the snapshot wrote its links (`--links`), to read them back. */
  readonly links: StoredLinks;
  readonly #checked = new Memo<true>(CHECKED_DIRS);
  readonly #linksOnly: LinksOnlyReader;
  readonly #answers = new Memo<{ data: unknown }>(CHECKED_DIRS);
  /** The answers that lead somewhere, kept for a second read of the records (keepLinksOnlyAnswers); else null. */
  #kept: Map<string, { data: unknown }> | null = null;
  /** Whether every links-only relationship has been asked for once since the answers were kept (settleLinksOnly). */
  #settled = false;
  /** Page numbers the manifest lists as missing, by collection. */
  /** The list pages the manifest names missing: by collection, the page numbers and their URLs. */
  readonly #missing = new Map<string, Map<number, string>>();

  /**
   * `name`: the snapshot as the user named it (an archive's name, not its temporary extraction), for messages.
   * `manifest`: read from `dir`, or the one a crawl is writing for its staged tree. `leadingNowhere`: from a crawl
   * that wrote the tree, its relationship documents stored with `data: null` (RunState.leadingNowhere).
   */
  constructor(
    readonly name: string,
    readonly dir: string,
    readonly manifest: Manifest,
    leadingNowhere: ReadonlySet<string> = new Set(),
  ) {
    this.layout = new Layout(manifest.source.root);
    this.links = StoredLinks.of(this.layout, manifest.options);
    this.#linksOnly = new LinksOnlyReader(dir, this.layout, this.links, this.#checked, leadingNowhere);
    for (const url of manifest.missing) {
      let location;
      try {
        location = locate(url, manifest.source.root);
      } catch {
        continue;
      }
      if (location.kind !== 'list') continue;
      const pages = this.#missing.get(location.collection) ?? new Map<number, string>();
      pages.set(location.page, url);
      this.#missing.set(location.collection, pages);
    }
  }

  /** The snapshot in `dir`, its manifest read and checked (NotASnapshotError when it is none). */
  static open(name: string, dir: string): SnapshotReader {
    return new SnapshotReader(name, dir, readSnapshotManifest(dir, name));
  }

  /** The collections the manifest names, by name. */
  collections(): string[] {
    return Object.keys(this.manifest.collections).sort(byCodeUnits);
  }

  /** The list pages of `collection` the snapshot holds, from its manifest and the layout. */
  pageFiles(collection: string): PageFiles {
    const stored = Object.hasOwn(this.manifest.collections, collection)
      ? this.manifest.collections[collection]!.pages
      : 0;
    const missing = this.#missing.get(collection) ?? new Map<number, string>();
    const pages: PageFiles['pages'] = [];
    const last = stored + missing.size;
    const listUrl = this.layout.collectionUrl(collection);
    for (let page = 1; page <= last; page += 1) {
      if (missing.has(page)) continue;
      const at = this.layout.pageOf(listUrl, page);
      if (at === null) {
        // A manifest changed by hand may name a collection such as `../..`: its pages cannot be files of the tree.
        const why = `names collection ${JSON.stringify(collection)}, whose list pages no file of a snapshot can hold`;
        throw new SnapshotReadError(this.name, MANIFEST_PATH, why);
      }
      pages.push({ page, ...at });
    }
    return { pages, lacking: missing.size };
  }

  /** The URLs of the list pages of `collection` that the snapshot lacks (its manifest's `missing`). */
  missingPageUrls(collection: string): string[] {
    return [...(this.#missing.get(collection)?.values() ?? [])];
  }

  /**
   * Whether the records read of `collection` may not be all it has: the snapshot lacks some of its list pages,
   * or its pages shifted while they were fetched (a record may be on none).
   */
  incomplete(collection: string): boolean {
    return this.#missing.has(collection) || shiftedOf(this.manifest).includes(collection);
  }

  /** Each stored list page of `collection`, read, in page order. */
  *pages(collection: string): Generator<ListPage> {
    for (const { page, url, file } of this.pageFiles(collection).pages) {
      const document = this.readJson(file, MAX_PAGE_BYTES);
      if (document === undefined) {
        // A partial snapshot may lack pages its manifest does not name (those never learned of).
        if (this.manifest.missing.length > 0) continue;
        throw new SnapshotReadError(this.name, file, 'is missing');
      }
      const data = isObject(document) ? document.data : undefined;
      const entries: readonly unknown[] = Array.isArray(data) ? (data as unknown[]) : [];
      const records: SnapshotRecord[] = [];
      const others: number[] = [];
      for (let i = 0; i < entries.length; i++) {
        const record = recordOf(entries[i]);
        if (record === null) others.push(i);
        else records.push(record);
      }
      yield { collection, page, url, file, entries, records, others };
    }
  }

  /** The records of `collection`'s list pages, page after page. */
  *records(collection: string): Generator<SnapshotRecord> {
    for (const page of this.pages(collection)) yield* page.records;
  }

  /**
   * The JSON of the snapshot file `file` (at most `maxBytes`); undefined when it does not exist, SnapshotReadError
   * when it cannot be read.
   */
  readJson(file: string, maxBytes: number): unknown {
    try {
      return readSnapshotJson(this.dir, file, maxBytes, this.#checked);
    } catch (error) {
      if (!(error instanceof UnusableFileError)) throw error;
      throw new SnapshotReadError(this.name, file, error.message);
    }
  }

  /**
   * The linkage of the relationship `name` of `record` (of `collection`): its `data` when given; for one given with
   * links only, the `data` its stored documents give (links-only.ts); undefined when neither says.
   */
  relationshipData(collection: string, record: SnapshotRecord, name: string): unknown {
    const relationship = Object.hasOwn(record.relationships, name) ? record.relationships[name] : undefined;
    if (!isObject(relationship)) return undefined;
    if ('data' in relationship) return relationship.data;
    const links = isObject(relationship.links) ? relationship.links : {};
    const linkText = (key: string): string => (typeof links[key] === 'string' ? links[key] : '');
    const key = flatKey(collection, record.id, record.self ?? '', name, linkText('self'), linkText('related'));
    let known = this.#kept?.get(key) ?? this.#answers.get(key);
    if (known === undefined) {
      if (this.#settled) return null;
      const answer = this.#linksOnly.read({ collection, id: record.id, self: record.self }, name, relationship);
      if (answer.unusable !== null) {
        throw new SnapshotReadError(this.name, answer.unusable.file, answer.unusable.why);
      }
      this.#answers.set(key, (known = { data: answer.data }));
      if (this.#kept !== null && known.data !== null) this.#kept.set(key, known);
    }
    return known.data;
  }

  /**
   * From now on, keeps every answer of a relationship given with links only that leads somewhere (or whose documents
   * the snapshot lacks): most lead nowhere (`data: null`), so what is kept is a few entries per deprecated record.
   * For a caller that reads the records a second time without reading those documents again (settleLinksOnly).
   */
  keepLinksOnlyAnswers(): void {
    this.#kept = new Map();
  }

  /**
   * Every links-only relationship of every record has been asked for once since keepLinksOnlyAnswers: from now on
   * the documents are not read again, and one not kept leads nowhere (`data: null`).
   */
  settleLinksOnly(): void {
    if (this.#kept === null) throw new Error('settleLinksOnly needs keepLinksOnlyAnswers first');
    this.#settled = true;
  }

  /** The names of `record`'s relationships given with links only (an object without `data`). */
  linksOnlyNames(record: SnapshotRecord): string[] {
    return Object.entries(record.relationships)
      .filter(([, relationship]) => isObject(relationship) && !('data' in relationship))
      .map(([name]) => name);
  }

  /** A record's URI as clients store it (its own links.self), and the one built from the collection. */
  recordUris(collection: string, record: SnapshotRecord): RecordUris {
    return recordUris(this.layout, this.links, { collection, id: record.id, self: record.self });
  }
}
