/**
 * A linked-data client asks `serve` for SKOS (docs/hosting.md): `Accept: text/turtle` or `application/ld+json` on a
 * record's API URL answers that record's concept, on a collection's URL the collection's scheme with its concepts,
 * both from the export's own mapping (src/export/), so they say what `cv-snapshot export` and the catalogue's
 * downloads say.
 */
import { downloadFile } from '../export/downloads.js';
import { exportParts, type ExportFormat } from '../export/export-snapshot.js';
import { jsonLdHead, jsonLdNode, jsonLdTail } from '../export/json-ld.js';
import { exportSource, type ExportSource } from '../export/export-source.js';
import { conceptNode, type MappingContext } from '../export/record-nodes.js';
import { surveySnapshot } from '../export/survey.js';
import { turtleHead, turtleNode } from '../export/turtle.js';
import type { Manifest } from '../format/manifest.js';
import { recordOf } from '../format/records.js';
import { SnapshotReader } from '../format/stored-records.js';
import { isObject } from '../json/is-object.js';
import type { SnapshotFiles } from './snapshot-files.js';
import type { RdfFormat } from './rdf-accept.js';

/** Makes the SKOS of a served snapshot's records and collections; the survey of its collections is made once. */
export class SkosAnswers {
  #context: MappingContext | null = null;

  constructor(
    private readonly files: SnapshotFiles,
    private readonly manifest: Manifest,
  ) {}

  #mapping(): MappingContext {
    if (this.#context === null) {
      const source: ExportSource = exportSource(new SnapshotReader(this.files.dir, this.files.dir, this.manifest));
      this.#context = { source, survey: surveySnapshot(source, { lenient: true }), language: undefined };
    }
    return this.#context;
  }

  /** The record the stored document `file` holds, as a concept; null when the document holds no record. */
  async record(collection: string, file: string, format: RdfFormat): Promise<Buffer | null> {
    const document = await this.files.readJson(file);
    const resource = recordOf(isObject(document) ? document.data : undefined);
    if (resource === null) return null;
    const node = conceptNode(this.#mapping(), collection, resource);
    const text =
      format === 'turtle'
        ? `${turtleHead()}${turtleNode(node)}`
        : `${jsonLdHead()}${jsonLdNode(node, true)}${jsonLdTail()}`;
    return Buffer.from(text);
  }

  /** The collection's scheme with its concepts: the catalogue's download of it, else made from its list pages. */
  async collection(collection: string, format: RdfFormat): Promise<Buffer> {
    const download = downloadFile(collection, format satisfies ExportFormat);
    if (this.files.has(download)) return (await this.files.read(download)).body;
    const plan = { ...this.#mapping(), collections: [collection], format };
    return Buffer.from([...exportParts(plan)].join(''));
  }
}
