/**
 * What the export must know before it writes its first line, from one pass over the list pages: which collection
 * holds each resource type (a relationship names its target by type and id only), and, for the CSV's header, the
 * attribute and relationship names each collection's records carry.
 */
import { throwIfStopped } from '../util/errors.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { byRecordOrder, type SnapshotRecord } from '../format/records.js';
import { SnapshotReadError } from '../format/stored-records.js';
import type { ExportSource } from './export-source.js';

export interface Survey {
  /** Resource type → the first collection (by name) whose records have it. */
  collectionOfType: Map<string, string>;
  /** Collection → its records' attribute names, sorted. */
  attributes: Map<string, string[]>;
  /** Collection → its records' relationship names, sorted. */
  relationships: Map<string, string[]>;
  /**
   * Collections whose list pages give their records in the export's order (byRecordOrder), each once: the export reads
   * them page by page instead of holding them to sort.
   */
  inOrder: Set<string>;
}

/**
 * The survey gathered record by record, by whoever reads the list pages: surveySnapshot here, or the one read of a
 * staged tree that also feeds the catalogue (src/catalogue/first-pass.ts). Collections are given in name order.
 */
export class SurveyBuilder {
  readonly survey: Survey = {
    collectionOfType: new Map(),
    attributes: new Map(),
    relationships: new Map(),
    inOrder: new Set(),
  };
  #collection = '';
  #attributes = new Set<string>();
  #relationships = new Set<string>();
  #previous: SnapshotRecord | undefined;
  #inOrder = true;

  begin(collection: string): void {
    this.#collection = collection;
    this.#attributes = new Set();
    this.#relationships = new Set();
    this.#previous = undefined;
    this.#inOrder = true;
  }

  add(resource: SnapshotRecord): void {
    if (this.#previous !== undefined && byRecordOrder(this.#previous, resource) >= 0) this.#inOrder = false;
    this.#previous = resource;
    const { survey } = this;
    if (!survey.collectionOfType.has(resource.type)) survey.collectionOfType.set(resource.type, this.#collection);
    for (const name of Object.keys(resource.attributes)) this.#attributes.add(name);
    for (const name of Object.keys(resource.relationships)) this.#relationships.add(name);
  }

  /** The collection is read: `whole` when every page of it was (an unread one leaves it out of `inOrder`). */
  end(whole: boolean): void {
    if (whole && this.#inOrder) this.survey.inOrder.add(this.#collection);
    this.survey.attributes.set(this.#collection, [...this.#attributes].sort(byCodeUnits));
    this.survey.relationships.set(this.#collection, [...this.#relationships].sort(byCodeUnits));
  }
}

/**
 * Surveys every collection of the snapshot (relationships may point into any of them), in name order. `lenient`:
 * a collection whose pages cannot be read is left out instead of stopping the survey.
 */
export function surveySnapshot(
  source: ExportSource,
  options: { signal?: AbortSignal; lenient?: boolean } = {},
): Survey {
  const builder = new SurveyBuilder();
  for (const collection of Object.keys(source.manifest.collections).sort(byCodeUnits)) {
    throwIfStopped(options.signal);
    builder.begin(collection);
    let whole = false;
    try {
      for (const resource of source.reader.records(collection)) builder.add(resource);
      whole = true;
    } catch (error) {
      if (!(options.lenient === true && error instanceof SnapshotReadError)) throw error;
    }
    builder.end(whole);
  }
  return builder.survey;
}
