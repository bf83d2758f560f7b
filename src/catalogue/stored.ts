/**
 * What the catalogue reads of the stored tree besides the list pages: a record's URI as clients store it, where the
 * snapshot stores a document, and where a relationship the lists give with links only (spec 2.4's `successor`)
 * leads, through the one reader of the documents that say so (src/format/links-only.ts).
 */
import type { Layout } from '../format/layout.js';
import { LinksOnlyReader, recordUris as storedRecordUris, type RecordUris } from '../format/links-only.js';
import type { StoredLinks } from '../format/rewrite-links.js';
import type { TreeWriter } from '../store/writer.js';
import { isObject } from '../json/is-object.js';
import type { Resource } from './resource.js';

/** Above this size a record's JSON is not shown in its page. */
export const MAX_SHOWN_JSON = 256 * 1024;

/** The stored tree and how its links were written. */
export interface TreeSite {
  layout: Layout;
  writer: TreeWriter;
  /** How the snapshot wrote its links (`--links`), to read them back. */
  links: StoredLinks;
}

/** The reader of the documents that say where a links-only relationship leads, for the tree of `site`. */
export function linksOnlyReader(site: TreeSite): LinksOnlyReader {
  return new LinksOnlyReader(site.writer.dir, site.layout, site.links);
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
export function recordUris(site: TreeSite, collection: string, resource: Resource): RecordUris {
  return storedRecordUris(site.layout, site.links, { collection, id: resource.id, self: resource.self });
}

/**
 * The relationships of `resource` given with links only, each with the linkage its stored documents give (null for
 * none; undefined where the snapshot holds none of them, or none that can be read safely).
 */
export function linksOnlyTargets(
  reader: LinksOnlyReader,
  collection: string,
  resource: Resource,
): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = [];
  const record = { collection, id: resource.id, self: resource.self };
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    if (!isObject(relationship) || 'data' in relationship) continue;
    found.push([name, reader.read(record, name, relationship).data]);
  }
  return found;
}
