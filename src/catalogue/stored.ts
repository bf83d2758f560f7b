/**
 * What the catalogue reads of the stored tree besides the records (which come from the one reader of them,
 * src/format/stored-records.ts): a record's URI as clients store it, and where the snapshot stores a document.
 */
import type { Layout } from '../format/layout.js';
import type { RecordUris } from '../format/links-only.js';
import type { SnapshotRecord } from '../format/records.js';
import type { SnapshotReader } from '../format/stored-records.js';
import type { TreeWriter } from '../store/writer.js';

/** Above this size a record's JSON is not shown in its page. */
export const MAX_SHOWN_JSON = 256 * 1024;

/** The stored tree: where the catalogue writes, and the reader of its records. */
export interface TreeSite {
  layout: Layout;
  writer: TreeWriter;
  reader: SnapshotReader;
}

/** Where the snapshot stores the document at `url`, or null. */
export function storedFile(site: TreeSite, url: string): string | null {
  try {
    const stored = site.layout.place(url);
    return stored.ok ? stored.file : null;
  } catch {
    return null;
  }
}

/** A record's URI as clients store it (its own links.self), and the one built from the collection that keeps it. */
export function recordUris(site: TreeSite, collection: string, record: SnapshotRecord): RecordUris {
  return site.reader.recordUris(collection, record);
}
