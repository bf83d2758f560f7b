/**
 * What the catalogue reads of the stored tree besides the list pages: a record's URI as clients store it, where the
 * snapshot stores a document, and where a relationship the lists give with links only (spec 2.4's `successor`)
 * leads, from the relationship or related document the snapshot stored.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Layout } from '../format/layout.js';
import type { TreeWriter } from '../store/writer.js';
import { isWebUrl } from './html.js';
import { isObject, type Resource } from './resource.js';

/** Above this size a stored document is not read (nor a record's JSON shown in its page). */
export const MAX_SHOWN_JSON = 256 * 1024;

/** The stored tree and how its links were written. */
export interface TreeSite {
  layout: Layout;
  writer: TreeWriter;
  /** The prefix of a rewritten link (`/`, the base URL), null for `original` links. */
  linkPrefix: string | null;
}

/** The stored document of the first of `urls` that the snapshot holds: its file and its parsed value. */
function storedDocument(site: TreeSite, urls: string[]): { file: string; doc: unknown } | null {
  for (const url of urls) {
    let stored;
    try {
      stored = site.layout.place(url);
    } catch {
      continue; // not a URL (a source's link may be anything)
    }
    if (!stored.ok) continue;
    try {
      const text = readFileSync(path.join(site.writer.dir, stored.file), 'utf8');
      return { file: stored.file, doc: text.length > MAX_SHOWN_JSON ? undefined : (JSON.parse(text) as unknown) };
    } catch {
      continue;
    }
  }
  return null;
}

/** The source URL a stored link stands for (links are rewritten as the snapshot was asked to), or null. */
function sourceUrlOf(link: string, site: TreeSite): string | null {
  let url = link;
  if (site.linkPrefix !== null && link.startsWith(site.linkPrefix)) {
    try {
      url = site.layout.sourceUrlOfServedPath(`/${link.slice(site.linkPrefix.length)}`);
    } catch {
      return null;
    }
  }
  return isWebUrl(url) ? url : null;
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
export function recordUris(site: TreeSite, collection: string, resource: Resource): { uri: string; built: string } {
  const built = `${site.layout.collectionUrl(collection)}${encodeURIComponent(resource.id)}/`;
  const self = resource.self === null ? null : sourceUrlOf(resource.self, site);
  return { uri: self ?? built, built };
}

/** Where a relationship the list gives as links only leads: the linkage of its stored documents, or undefined. */
function linksOnlyData(
  site: TreeSite,
  relationship: Record<string, unknown>,
  at: { uri: string; built: string; name: string },
) {
  const links = isObject(relationship.links) ? relationship.links : {};
  const own = (key: string) => (typeof links[key] === 'string' ? sourceUrlOf(links[key], site) : null);
  // The relationship document (beside the record's, else where its links.self says), then the related document,
  // whose data is the target itself (or a list of them): either names where the relationship leads.
  const tried = [
    `${at.uri}relationships/${encodeURIComponent(at.name)}`,
    own('self'),
    `${at.built}relationships/${encodeURIComponent(at.name)}`,
    own('related'),
    `${at.uri}${encodeURIComponent(at.name)}/`,
  ];
  for (const url of tried) {
    if (url === null) continue;
    const found = storedDocument(site, [url]);
    if (isObject(found?.doc) && 'data' in found.doc) return found.doc.data;
  }
  return undefined;
}

/**
 * The relationships of `resource` given with links only, each with the linkage its stored documents give (null for
 * none; undefined where the snapshot holds neither document).
 */
export function linksOnlyTargets(site: TreeSite, collection: string, resource: Resource): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = [];
  let at: { uri: string; built: string } | undefined;
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    if (!isObject(relationship) || 'data' in relationship) continue;
    at ??= recordUris(site, collection, resource);
    found.push([name, linksOnlyData(site, relationship, { ...at, name })]);
  }
  return found;
}
