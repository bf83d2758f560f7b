/**
 * The snapshot an export reads: its records through the one reader of them (src/format/stored-records.ts), and
 * the IRIs its links stand for at the source.
 */
import type { Layout } from '../format/layout.js';
import type { Manifest } from '../format/manifest.js';
import { SnapshotReader } from '../format/stored-records.js';
import { SourceIris } from './source-iri.js';

export interface ExportSource {
  reader: SnapshotReader;
  manifest: Manifest;
  layout: Layout;
  iris: SourceIris;
}

/**
 * IRIs of links remembered (two generations of this many): about a collection's records, whose graph nodes and then
 * CSV rows ask for the same (the catalogue's downloads).
 */
const REMEMBERED = 4096;
/**
 * The same for an export of one format, which asks for most links once: a memo of thousands would only keep what
 * was read long enough for the collector to move it to the old generation (3 MB more peak RSS at 202,951
 * documents), for no saved work.
 */
const REMEMBERED_ONCE = 64;

/** The snapshot in `dir`, for an export of one format; `name` is the snapshot as the user named it. */
export function openExportSource(name: string, dir: string): ExportSource {
  return exportSource(SnapshotReader.open(name, dir), REMEMBERED_ONCE);
}

/** The snapshot `reader` reads (a finished one, or the tree a crawl is finishing). */
export function exportSource(reader: SnapshotReader, remembered = REMEMBERED): ExportSource {
  const { layout, manifest } = reader;
  return { reader, manifest, layout, iris: new SourceIris(manifest.source.root, layout, reader.links, remembered) };
}
