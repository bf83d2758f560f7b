/**
 * Reading a snapshot's records for `diff`, one collection at a time, through the layout module: the bare collection
 * file holds the complete collection, unless the snapshot was made with `--collection-index first-page`, in which
 * case the page files are read in order.
 *
 * A partial snapshot (made with --allow-partial) lacks list pages: the records on them are not in its collection,
 * though the source may still hold them. Which collections are incomplete so comes from its manifest's `missing`,
 * and from its `shifted`: a collection whose pages disagreed every time they were fetched may miss records too.
 *
 * Files are read as verify reads them: never through a symbolic link, never a pipe or device, JSON nested too deep
 * refused, numbers kept as the source wrote them.
 */
import { isObject } from '../json/is-object.js';
import { createHash } from 'node:crypto';
import { DiffError, throwIfStopped } from '../util/errors.js';
import { Layout } from '../format/layout.js';
import { LinksOnlyReader, selfLinkOf, type StoredRecord } from '../format/links-only.js';
import { StoredLinks } from '../format/rewrite-links.js';
import type { Manifest } from '../format/manifest.js';
import { readSnapshotJson, readSnapshotManifest, UnusableFileError } from '../format/read-snapshot.js';
import { locate } from '../url/api-location.js';
import { shiftedOf } from '../format/partial.js';
import { elementText } from './exact-values.js';

/** The parts of a JSON:API resource object that diff compares. */
export interface DiffRecord {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
}

export interface OpenSnapshot {
  /** How the snapshot was named on the command line, for messages. */
  name: string;
  dir: string;
  manifest: Manifest;
  layout: Layout;
  /** List pages of each collection that a partial snapshot lacks (its manifest's `missing`), by collection. */
  missingPages: Map<string, string[]>;
  /** Where the relationships the lists give with links only lead. */
  linksOnly: LinksOnlyReader;
}

/** A collection file is read whole; V8's strings hold at most about 512 MiB. */
const MAX_LIST_BYTES = 500 << 20;
/** Records read between two checks of the signal. */
const RECORDS_PER_CHECK = 4096;

function missingListPages(manifest: Manifest): Map<string, string[]> {
  const pages = new Map<string, string[]>();
  for (const url of manifest.missing) {
    let location;
    try {
      location = locate(url, manifest.source.root);
    } catch {
      continue;
    }
    if (location.kind !== 'list') continue;
    const list = pages.get(location.collection) ?? [];
    list.push(url);
    pages.set(location.collection, list);
  }
  return pages;
}

/**
 * Opens a snapshot for reading its records. `manifest` is given for a tree whose manifest is not written yet (a
 * crawl's staged tree, compared with the snapshot before it at finalize); otherwise it is read from the tree.
 */
export function openSnapshot(name: string, dir: string, manifest = readSnapshotManifest(dir, name)): OpenSnapshot {
  const layout = new Layout(manifest.source.root);
  return {
    name,
    dir,
    manifest,
    layout,
    missingPages: missingListPages(manifest),
    linksOnly: new LinksOnlyReader(dir, layout, StoredLinks.of(layout, manifest.options)),
  };
}

/** The files that together hold every record of `collection`, in page order. */
function collectionFiles(snapshot: OpenSnapshot, collection: string): string[] {
  const { layout, manifest } = snapshot;
  if (manifest.options.collectionIndex === 'complete') return [layout.collectionIndex(collection).file];
  const pages = manifest.collections[collection]?.pages ?? 0;
  const files: string[] = [];
  for (let page = 1; page <= pages; page += 1) {
    const placement = layout.place(`${layout.collectionUrl(collection)}?page%5Bnumber%5D=${page}`);
    if (placement.ok) files.push(placement.file);
  }
  return files;
}

/** The `data` of a list document; null when a partial snapshot (or an empty collection) has no such file. */
function readListDocument(snapshot: OpenSnapshot, collection: string, file: string): unknown[] | null {
  let document: unknown;
  try {
    document = readSnapshotJson(snapshot.dir, file, MAX_LIST_BYTES);
  } catch (error) {
    if (!(error instanceof UnusableFileError)) throw error;
    throw new DiffError(`${snapshot.name}: ${file} ${error.message}. Run cv-snapshot verify on it.`);
  }
  if (document === undefined) {
    // A partial snapshot (--allow-partial) may lack a page; a collection without pages has no index built from them.
    const pages = snapshot.manifest.collections[collection]?.pages ?? 0;
    if (snapshot.manifest.missing.length > 0 || pages === 0) return null;
    throw new DiffError(`${snapshot.name}: ${file} is missing. Run cv-snapshot verify on it.`);
  }
  // A source's page that is no list (null, an error document) is mirrored as it came, and the report names it:
  // it holds no records.
  const data = isObject(document) ? document.data : undefined;
  return Array.isArray(data) ? (data as unknown[]) : [];
}

/**
 * A record's relationships, each one the list gives with links only (spec 2.4: `successor`) completed with the `data`
 * its stored documents give (src/format/links-only.ts: the relationship document first), so that a successor set in
 * a new release is seen. Where the snapshot holds none of them (or none that can be read safely) the relationship
 * stays as given and compares as having no data.
 */
function withStoredLinkage(
  snapshot: OpenSnapshot,
  record: StoredRecord,
  relationships: Record<string, unknown>,
): Record<string, unknown> {
  let completed = relationships;
  for (const [name, relationship] of Object.entries(relationships)) {
    if (!isObject(relationship) || 'data' in relationship) continue;
    const { data } = snapshot.linksOnly.read(record, name, relationship);
    if (data === undefined) continue;
    if (completed === relationships) completed = { ...relationships };
    completed[name] = { ...relationship, data };
  }
  return completed;
}

/** `type` + `id`: what identifies a record across snapshots. */
function recordKey(type: string, id: string): string {
  return `${type}\u0000${id}`;
}

export interface CollectionRecords {
  /** Every record read, by `recordKey`. */
  records: Map<string, DiffRecord>;
  /**
   * The snapshot is partial and lacks list pages of this collection, or its pages shifted: records absent here
   * prove nothing.
   */
  incomplete: boolean;
  /**
   * Elements of the collection's lists without a string `type` and `id`, which cannot be matched across snapshots:
   * the SHA-256 of each one's canonical text (`elementText`), sorted, to compare them as a whole.
   */
  unmatched: string[];
}

/**
 * Every record of `collection`, by `recordKey`. Elements without a string type and id cannot be matched across
 * snapshots: they are counted and compared as a whole (`unmatched`), never silently left out (validation reports
 * them too). A record
 * listed twice (a source that shifted between pages) counts once, as last seen.
 */
export async function readCollectionRecords(
  snapshot: OpenSnapshot,
  collection: string,
  signal?: AbortSignal,
): Promise<CollectionRecords> {
  const records = new Map<string, DiffRecord>();
  let incomplete = snapshot.missingPages.has(collection) || shiftedOf(snapshot.manifest).includes(collection);
  const unmatched: string[] = [];
  let read = 0;
  for (const file of collectionFiles(snapshot, collection)) {
    throwIfStopped(signal);
    const data = readListDocument(snapshot, collection, file);
    if (data === null) {
      incomplete ||= snapshot.manifest.missing.length > 0;
      continue;
    }
    for (const [index, item] of data.entries()) {
      if (++read % RECORDS_PER_CHECK === 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        throwIfStopped(signal);
      }
      if (!isObject(item) || typeof item.type !== 'string' || typeof item.id !== 'string') {
        unmatched.push(createHash('sha256').update(elementText(data, index)).digest('hex'));
        continue;
      }
      records.set(recordKey(item.type, item.id), {
        type: item.type,
        id: item.id,
        attributes: isObject(item.attributes) ? item.attributes : {},
        relationships: isObject(item.relationships)
          ? withStoredLinkage(snapshot, { collection, id: item.id, self: selfLinkOf(item) }, item.relationships)
          : {},
      });
    }
  }
  return { records, incomplete, unmatched: unmatched.sort() };
}
