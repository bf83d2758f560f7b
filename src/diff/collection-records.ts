/**
 * A collection's records as `diff` compares them, read through the one reader of a snapshot's records
 * (src/format/stored-records.ts), one collection at a time.
 *
 * A partial snapshot (made with --allow-partial) lacks list pages: the records on them are not in its collection,
 * though the source may still hold them. Which collections are incomplete so comes from its manifest's `missing`,
 * and from its `shifted`: a collection whose pages disagreed every time they were fetched may miss records too.
 */
import { createHash } from 'node:crypto';
import { throwIfStopped } from '../util/errors.js';
import { flatKey } from '../util/flat-key.js';
import type { Manifest } from '../format/manifest.js';
import type { SnapshotRecord } from '../format/records.js';
import { SnapshotReader } from '../format/stored-records.js';
import { locate } from '../url/api-location.js';
import { elementText } from './exact-values.js';

export interface OpenSnapshot {
  reader: SnapshotReader;
  /** List pages of each collection that a partial snapshot lacks (its manifest's `missing`), by collection. */
  missingPages: Map<string, string[]>;
}

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
export function openSnapshot(name: string, dir: string, manifest?: Manifest): OpenSnapshot {
  const reader = manifest === undefined ? SnapshotReader.open(name, dir) : new SnapshotReader(name, dir, manifest);
  return { reader, missingPages: missingListPages(reader.manifest) };
}

/**
 * A record with each relationship given with links only (spec 2.4: `successor`) completed with the `data` its
 * stored documents give, so that a successor set in a new release is seen. Where the snapshot holds none of them
 * the relationship stays as given and compares as having no data.
 */
function withStoredLinkage(reader: SnapshotReader, collection: string, record: SnapshotRecord): SnapshotRecord {
  let completed: Record<string, unknown> | undefined;
  for (const name of reader.linksOnlyNames(record)) {
    const data = reader.relationshipData(collection, record, name);
    if (data === undefined) continue;
    completed ??= { ...record.relationships };
    completed[name] = { ...(record.relationships[name] as object), data };
  }
  return completed === undefined ? record : { ...record, relationships: completed };
}

export interface CollectionRecords {
  /** Every record read, by type and id (`flatKey`). */
  records: Map<string, SnapshotRecord>;
  /**
   * The snapshot is partial and lacks list pages of this collection, or its pages shifted: records absent here
   * prove nothing.
   */
  incomplete: boolean;
  /**
   * Elements of the collection's lists that are not records (no type or id), which cannot be matched across
   * snapshots: the SHA-256 of each one's canonical text (`elementText`), sorted, to compare them as a whole.
   */
  unmatched: string[];
}

/**
 * Every record of `collection`, by type and id. Elements that are not records cannot be matched across snapshots:
 * they are counted and compared as a whole (`unmatched`), never silently left out (validation reports them too). A
 * record listed twice (a source that shifted between pages) counts once, as last seen.
 */
export async function readCollectionRecords(
  snapshot: OpenSnapshot,
  collection: string,
  signal?: AbortSignal,
): Promise<CollectionRecords> {
  const { reader } = snapshot;
  const records = new Map<string, SnapshotRecord>();
  const unmatched: string[] = [];
  let read = 0;
  for (const page of reader.pages(collection)) {
    throwIfStopped(signal);
    for (const index of page.others) {
      unmatched.push(createHash('sha256').update(elementText(page.entries, index)).digest('hex'));
    }
    for (const record of page.records) {
      if (++read % RECORDS_PER_CHECK === 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        throwIfStopped(signal);
      }
      records.set(flatKey(record.type, record.id), withStoredLinkage(reader, collection, record));
    }
  }
  return { records, incomplete: reader.incomplete(collection), unmatched: unmatched.sort() };
}
