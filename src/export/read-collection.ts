/**
 * Reading a snapshot's records for the export, one list page at a time, as verify reads files: never through a
 * symbolic link, never a pipe or device, JSON nested too deep refused. The list pages (`<collection>/page/<n>/`)
 * are read rather than the complete collection, so memory holds one page, whatever the collection's size, and
 * snapshots made with `--collection-index first-page` read the same.
 */
import { flatKey } from '../util/flat-key.js';
import { isObject } from '../json/is-object.js';
import { Layout } from '../format/layout.js';
import { LinksOnlyReader, selfLinkOf } from '../format/links-only.js';
import { StoredLinks } from '../format/rewrite-links.js';
import type { Manifest } from '../format/manifest.js';
import { readSnapshotJson, readSnapshotManifest, UnusableFileError } from '../format/read-snapshot.js';
import { ExportError } from './export-error.js';
import { Memo } from '../url/memo.js';
import { SourceIris } from './source-iri.js';

/** A JSON:API resource object as a list page holds it; anything may be missing or of another type. */
export interface Resource {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
  links?: unknown;
}

export interface ExportSource {
  /** The snapshot as the user named it (an archive's name, not its temporary extraction), for messages. */
  name: string;
  dir: string;
  manifest: Manifest;
  layout: Layout;
  iris: SourceIris;
  /** Directories of the snapshot already found to be directories (readSnapshotFile). */
  checked: Memo<true>;
  /** The reader of the documents that say where a relationship given with links only leads. */
  reader: LinksOnlyReader;
  /**
   * What `reader` answered lately, by record and relationship: a collection's graph nodes and then its CSV rows ask
   * for the same ones (the catalogue's downloads).
   */
  linksOnly: Memo<{ data: unknown }>;
}

/** A list page is small (one page of the source). */
const MAX_PAGE_BYTES = 256 << 20;

/**
 * Directories remembered as checked, answers of the links-only reader and IRIs of links (two generations of this many
 * each): about a collection's records, whose graph nodes and then CSV rows ask for the same (the catalogue's
 * downloads).
 */
const REMEMBERED = 4096;
/**
 * The same for an export of one format, which asks for each links-only successor and most links once: memos of
 * thousands would only keep what was read long enough for the collector to move it to the old generation (3 MB more
 * peak RSS at 202,951 documents), for no saved read.
 */
const REMEMBERED_ONCE = 64;

/** The snapshot in `dir`, for an export of one format. */
export function openExportSource(name: string, dir: string): ExportSource {
  return exportSource(name, dir, readSnapshotManifest(dir, name), REMEMBERED_ONCE);
}

/** The snapshot in `dir`, whose manifest is `manifest` (read, or being written by a crawl). */
export function exportSource(name: string, dir: string, manifest: Manifest, remembered = REMEMBERED): ExportSource {
  const layout = new Layout(manifest.source.root);
  const checked = new Memo<true>(remembered);
  const links = StoredLinks.of(layout, manifest.options);
  return {
    name,
    dir,
    manifest,
    layout,
    iris: new SourceIris(manifest.source.root, layout, links, remembered),
    checked,
    reader: new LinksOnlyReader(dir, layout, links, checked),
    linksOnly: new Memo(remembered),
  };
}

/** The JSON of a snapshot file; undefined when it does not exist. */
function readJsonFile(source: ExportSource, file: string, maxBytes: number): unknown {
  try {
    return readSnapshotJson(source.dir, file, maxBytes, source.checked);
  } catch (error) {
    if (!(error instanceof UnusableFileError)) throw error;
    throw new ExportError(`${source.name}: ${file} ${error.message}. Run cv-snapshot verify on it.`);
  }
}

/** A list entry or a document's `data` as a record, or null when it has no string type and id. */
export function asResource(item: unknown): Resource | null {
  if (!isObject(item) || typeof item.type !== 'string' || typeof item.id !== 'string') return null;
  return {
    type: item.type,
    id: item.id,
    attributes: isObject(item.attributes) ? item.attributes : {},
    relationships: isObject(item.relationships) ? item.relationships : {},
    links: item.links,
  };
}

/**
 * The records of `collection`'s list pages, page after page. A page a partial snapshot lacks is skipped, and so is
 * a page that holds no list; elements without a string type and id are left out (validation reports them).
 */
export function* collectionResources(source: ExportSource, collection: string): Generator<Resource> {
  const { layout, manifest } = source;
  const pages = manifest.collections[collection]?.pages ?? 0;
  for (let page = 1; page <= pages; page += 1) {
    const at = layout.pageOf(layout.collectionUrl(collection), page);
    if (at === null) continue;
    const document = readJsonFile(source, at.file, MAX_PAGE_BYTES);
    if (document === undefined) {
      if (manifest.missing.length === 0) {
        throw new ExportError(`${source.name}: ${at.file} is missing. Run cv-snapshot verify on it.`);
      }
      continue;
    }
    // A page the source answered with something else than a list (the crawl reported it) holds no records.
    const data = isObject(document) ? document.data : undefined;
    if (!Array.isArray(data)) continue;
    for (const item of data) {
      const resource = asResource(item);
      if (resource !== null) yield resource;
    }
  }
}

/** A string member of a relationship's links, or '' (for a memo key: '' leads nowhere, as a non-string does). */
function linkOf(relationship: Record<string, unknown>, key: string): string {
  const links = isObject(relationship.links) ? relationship.links : {};
  return typeof links[key] === 'string' ? links[key] : '';
}

/**
 * Where the relationship `name` of `resource` in `collection`, given with links only, leads: the `data` its stored
 * documents give (src/format/links-only.ts), or undefined where the snapshot holds none of them. A document the
 * snapshot holds but that cannot be read safely stops the export, as any such file does.
 */
export function linksOnlyData(
  source: ExportSource,
  record: { collection: string; resource: Resource },
  name: string,
  relationship: Record<string, unknown>,
): unknown {
  const stored = { collection: record.collection, id: record.resource.id, self: selfLinkOf(record.resource) };
  const links = [linkOf(relationship, 'self'), linkOf(relationship, 'related')];
  const key = flatKey(stored.collection, stored.id, stored.self ?? '', name, ...links);
  let known = source.linksOnly.get(key);
  if (known === undefined) {
    const answer = source.reader.read(stored, name, relationship);
    if (answer.unusable !== null) {
      throw new ExportError(`${source.name}: ${answer.unusable}. Run cv-snapshot verify on it.`);
    }
    source.linksOnly.set(key, (known = { data: answer.data }));
  }
  return known.data;
}
