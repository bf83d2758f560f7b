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
 * Surveys every collection of the snapshot (relationships may point into any of them), in name order. `lenient`:
 * a collection whose pages cannot be read is left out instead of stopping the survey.
 */
export function surveySnapshot(
  source: ExportSource,
  options: { signal?: AbortSignal; lenient?: boolean } = {},
): Survey {
  const survey: Survey = {
    collectionOfType: new Map(),
    attributes: new Map(),
    relationships: new Map(),
    inOrder: new Set(),
  };
  for (const collection of Object.keys(source.manifest.collections).sort(byCodeUnits)) {
    throwIfStopped(options.signal);
    const attributes = new Set<string>();
    const relationships = new Set<string>();
    let previous: SnapshotRecord | undefined;
    let inOrder = true;
    try {
      for (const resource of source.reader.records(collection)) {
        if (previous !== undefined && byRecordOrder(previous, resource) >= 0) inOrder = false;
        previous = resource;
        if (!survey.collectionOfType.has(resource.type)) survey.collectionOfType.set(resource.type, collection);
        for (const name of Object.keys(resource.attributes)) attributes.add(name);
        for (const name of Object.keys(resource.relationships)) relationships.add(name);
      }
      if (inOrder) survey.inOrder.add(collection);
    } catch (error) {
      if (!(options.lenient === true && error instanceof SnapshotReadError)) throw error;
    }
    survey.attributes.set(collection, [...attributes].sort(byCodeUnits));
    survey.relationships.set(collection, [...relationships].sort(byCodeUnits));
  }
  return survey;
}
