/**
 * The catalogue's downloads: each collection as Turtle, JSON-LD and CSV, written into the snapshot's tree beside
 * the collection's pages, from the catalogue's own read of the list pages (at crawl time in finalize, and by
 * `cv-snapshot catalogue`), before SHA256SUMS is written, so that they are listed there, checked by verify and
 * carried by pack. The paths are named here only.
 */
import { collectionFolder, fileName } from '../format/catalogue-names.js';
import type { TreeWriter } from '../store/writer.js';
import { flatKey } from '../util/flat-key.js';
import { byRecordOrder, type SnapshotRecord } from '../format/records.js';
import { exportParts, type ExportFormat } from './export-snapshot.js';
import type { ExportSource } from './export-source.js';
import type { Survey } from './survey.js';
import { conceptNode, schemeNode, type MappingContext } from './record-nodes.js';
import type { RdfNode } from './rdf-node.js';
import { csvColumns, csvRow, type CsvColumns } from './csv.js';

const EXTENSIONS: Record<ExportFormat, string> = { turtle: 'ttl', jsonld: 'jsonld', csv: 'csv' };

/**
 * Where a collection's download in `format` is, relative to the snapshot: in the catalogue's folder of the
 * collection, named as the catalogue names files (`_catalogue/units/units.ttl`).
 */
export function downloadFile(collection: string, format: ExportFormat): string {
  return `${collectionFolder(collection)}/${fileName(collection)}.${EXTENSIONS[format]}`;
}

/**
 * One collection's downloads, fed its records as the catalogue's second pass reads them (collection-pages.ts), and
 * written when the collection is read: each file made whole before it is written, so that a page that cannot be read
 * leaves no file half written. `survey` is the catalogue's first pass's, over the whole snapshot (a relationship may
 * point into any collection).
 */
export class CollectionDownloads {
  /** Per record (type and id), its concept and its CSV row; a record a list gives twice once, as last seen. */
  readonly #made = new Map<string, { record: SnapshotRecord; node: RdfNode; row: string }>();
  readonly #context: MappingContext;
  readonly #columns: CsvColumns;

  constructor(
    readonly source: ExportSource,
    survey: Survey,
    readonly collection: string,
  ) {
    this.#context = { source, survey, language: undefined };
    this.#columns = csvColumns(this.#context, [collection]);
  }

  /** A record of the collection, in the order of its pages. */
  add(record: SnapshotRecord): void {
    const { collection } = this;
    // Turtle and JSON-LD are one graph: its node is made once (a successor's answer asked once).
    const node = conceptNode(this.#context, collection, record);
    const row = csvRow(this.#context, this.#columns, collection, record);
    this.#made.set(flatKey(record.type, record.id), { record, node, row });
  }

  /** Writes the collection's three files, its records in id order (exportParts). */
  write(writer: TreeWriter): void {
    const { collection } = this;
    const made = [...this.#made.values()];
    if (!this.#context.survey.inOrder.has(collection)) made.sort((a, b) => byRecordOrder(a.record, b.record));
    const nodes = [schemeNode(this.#context, collection), ...made.map(({ node }) => node)];
    for (const format of Object.keys(EXTENSIONS) as ExportFormat[]) {
      const plan = { ...this.#context, collections: [collection], format };
      const parts = exportParts(plan, {
        nodes: () => nodes,
        rows: () => made.map(({ row }) => row),
      });
      writer.writeParts(downloadFile(collection, format), [...parts]);
    }
    this.#made.clear();
  }
}
