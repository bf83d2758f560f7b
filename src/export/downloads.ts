/**
 * The catalogue's downloads: each collection as Turtle, JSON-LD and CSV, written into the snapshot's tree beside
 * the collection's pages, at crawl time (finalize) and by `cv-snapshot catalogue`, before SHA256SUMS is written, so
 * that they are listed there, checked by verify and carried by pack. The paths are named here only.
 */
import { collectionFolder, fileName } from '../format/catalogue-names.js';
import type { Manifest } from '../format/manifest.js';
import type { TreeWriter } from '../store/writer.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { SnapshotReadError, SnapshotReader } from '../format/stored-records.js';
import { collectionNodes, exportParts, sortedResources, type ExportFormat } from './export-snapshot.js';
import { exportSource } from './export-source.js';
import { surveySnapshot } from './survey.js';

const EXTENSIONS: Record<ExportFormat, string> = { turtle: 'ttl', jsonld: 'jsonld', csv: 'csv' };

/**
 * Where a collection's download in `format` is, relative to the snapshot: in the catalogue's folder of the
 * collection, named as the catalogue names files (`_catalogue/units/units.ttl`).
 */
export function downloadFile(collection: string, format: ExportFormat): string {
  return `${collectionFolder(collection)}/${fileName(collection)}.${EXTENSIONS[format]}`;
}

/**
 * Writes every collection's downloads into the tree `writer` stages, whose `manifest` is the one being written.
 * A collection whose list pages cannot be read (validation has reported them) gets none, rather than failing the
 * crawl; the collections that got them are returned.
 */
export function writeVocabularyDownloads(writer: TreeWriter, manifest: Manifest): string[] {
  const source = exportSource(new SnapshotReader(writer.dir, writer.dir, manifest));
  const survey = surveySnapshot(source, { lenient: true });
  const written: string[] = [];
  for (const collection of Object.keys(manifest.collections).sort(byCodeUnits)) {
    // The collection is read once for its three files, and each file made whole before it is written: a page that
    // cannot be read leaves no file half written.
    let files: Array<[string, string[]]>;
    try {
      const resources = sortedResources(source, collection);
      const context = { source, survey, language: undefined };
      // Turtle and JSON-LD are one graph: its nodes are made once (a successor's stored documents read once).
      const nodes = [...collectionNodes(context, collection, resources)];
      files = (Object.keys(EXTENSIONS) as ExportFormat[]).map((format) => {
        const plan = { ...context, collections: [collection], format };
        return [
          downloadFile(collection, format),
          [
            ...exportParts(
              plan,
              () => resources,
              () => nodes,
            ),
          ],
        ];
      });
    } catch (error) {
      if (!(error instanceof SnapshotReadError)) throw error;
      continue;
    }
    for (const [file, parts] of files) writer.writeParts(file, parts);
    written.push(collection);
  }
  return written;
}
