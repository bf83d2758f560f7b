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
import { SnapshotReader, type ListPage } from '../format/stored-records.js';
import { elementText } from './exact-values.js';

export interface OpenSnapshot {
  reader: SnapshotReader;
}

/** Records read between two checks of the signal. */
export const RECORDS_PER_CHECK = 4096;

/**
 * Opens a snapshot for reading its records. `manifest` is given for a tree whose manifest is not written yet (a
 * crawl's staged tree, compared with the snapshot before it at finalize); otherwise it is read from the tree.
 */
export function openSnapshot(name: string, dir: string, manifest?: Manifest): OpenSnapshot {
  const reader = manifest === undefined ? SnapshotReader.open(name, dir) : new SnapshotReader(name, dir, manifest);
  return { reader };
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
 * A collection's records gathered page by page, as `diff` compares them, by whoever reads the pages:
 * readCollectionRecords here; at finalize, the catalogue's first read of the staged tree (src/catalogue/first-pass.ts).
 * Elements that are not records cannot be matched across snapshots: they are counted and compared as a whole
 * (`unmatched`), never silently left out (validation reports them too). A record listed twice (a source that shifted
 * between pages) counts once, as last seen.
 */
export class CollectionRecordsBuilder {
  readonly #records = new Map<string, SnapshotRecord>();
  readonly #unmatched: string[] = [];

  constructor(
    readonly reader: SnapshotReader,
    readonly collection: string,
  ) {}

  /** The elements of `page` that are not records, before its records are added. */
  addOthers(page: ListPage): void {
    for (const index of page.others) {
      this.#unmatched.push(createHash('sha256').update(elementText(page.entries, index)).digest('hex'));
    }
  }

  add(record: SnapshotRecord): void {
    this.#records.set(flatKey(record.type, record.id), withStoredLinkage(this.reader, this.collection, record));
  }

  done(): CollectionRecords {
    return {
      records: this.#records,
      incomplete: this.reader.incomplete(this.collection),
      unmatched: this.#unmatched.sort(),
    };
  }
}

/** Every record of `collection`, by type and id (CollectionRecordsBuilder), the signal checked as they are read. */
export async function readCollectionRecords(
  snapshot: OpenSnapshot,
  collection: string,
  signal?: AbortSignal,
): Promise<CollectionRecords> {
  const records = new CollectionRecordsBuilder(snapshot.reader, collection);
  let read = 0;
  for (const page of snapshot.reader.pages(collection)) {
    throwIfStopped(signal);
    records.addOthers(page);
    for (const record of page.records) {
      if (++read % RECORDS_PER_CHECK === 0) await breather(signal);
      records.add(record);
    }
  }
  return records.done();
}

/** A turn of the event loop, so that a signal can be heard; throws when it stopped the work. */
export async function breather(signal?: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  throwIfStopped(signal);
}
