/**
 * `cv-snapshot export`: a snapshot's collections as SKOS (Turtle, JSON-LD) or CSV, written as they are read, one
 * collection at a time: memory holds one list page when the pages give the records in id order (the API lists them
 * so), else one collection's records, never the whole graph. Collections in name order,
 * records in id order (numeric ids as numbers), statements sorted: the same snapshot gives the same bytes.
 */
import { byCodeUnits } from '../util/code-unit-order.js';
import { csvColumns, csvHeader, csvRow, type CsvColumns } from './csv.js';
import { jsonLdHead, jsonLdNode, jsonLdTail } from './json-ld.js';
import { byRecordOrder, type SnapshotRecord } from '../format/records.js';
import type { ExportSource } from './export-source.js';
import { conceptNode, schemeNode, type MappingContext } from './record-nodes.js';
import type { RdfNode } from './rdf-node.js';
import { turtleHead, turtleNode } from './turtle.js';

export const EXPORT_FORMATS = ['turtle', 'jsonld', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What an export was asked for, and what it needs to know first (survey.ts). */
export interface ExportPlan extends MappingContext {
  collections: readonly string[];
  format: ExportFormat;
}

/**
 * One collection's records in id order (then type); a record a list gives twice (a source that shifted between
 * pages) once, as last seen.
 */
function sortedResources(source: ExportSource, collection: string): SnapshotRecord[] {
  const byKey = new Map<string, SnapshotRecord>();
  for (const resource of source.reader.records(collection)) byKey.set(`${resource.type}\u0000${resource.id}`, resource);
  return [...byKey.values()].sort(byRecordOrder);
}

/**
 * One collection's records in id order, as sortedResources gives them: read a page at a time when the survey found
 * its pages in that order already (a source lists by id), so that memory holds one page; else sorted in memory.
 */
function orderedResources(context: MappingContext, collection: string): Iterable<SnapshotRecord> {
  return context.survey.inOrder.has(collection)
    ? context.source.reader.records(collection)
    : sortedResources(context.source, collection);
}

/** Where a plan's records come from: read from the snapshot. */
type RecordSource = (collection: string) => Iterable<SnapshotRecord>;
/**
 * What a plan writes, per collection: its graph nodes (the scheme first) and its CSV rows, made from its records as
 * they are read, or made already (the catalogue's downloads, as its pages are written: downloads.ts).
 */
export interface PartSources {
  nodes: (collection: string) => Iterable<RdfNode>;
  rows: (collection: string, columns: CsvColumns) => Iterable<string>;
}

/** One collection's nodes: its concept scheme, then a concept per record, in the records' order. */
function* collectionNodes(
  context: MappingContext,
  collection: string,
  resources: Iterable<SnapshotRecord>,
): Generator<RdfNode> {
  yield schemeNode(context, collection);
  for (const resource of resources) yield conceptNode(context, collection, resource);
}

function* graphParts(
  plan: ExportPlan,
  nodes: PartSources['nodes'],
  parts: { head: string; node: (node: RdfNode) => string; tail: string },
): Generator<string> {
  yield parts.head;
  for (const collection of plan.collections) {
    for (const node of nodes(collection)) yield parts.node(node);
  }
  yield parts.tail;
}

/**
 * The export's text in pieces (about one record each), for a stream or a TreeWriter. `made` gives nodes and rows
 * already made (downloads.ts); by default they are made from the records as they are read.
 */
export function exportParts(plan: ExportPlan, made?: PartSources): Generator<string> {
  const records: RecordSource = (collection) => orderedResources(plan, collection);
  const sources: PartSources = made ?? {
    nodes: (collection) => collectionNodes(plan, collection, records(collection)),
    rows: function* (collection, columns) {
      for (const resource of records(collection)) yield csvRow(plan, columns, collection, resource);
    },
  };
  switch (plan.format) {
    case 'turtle':
      return graphParts(plan, sources.nodes, { head: turtleHead(), node: turtleNode, tail: '' });
    case 'jsonld': {
      let first = true;
      const node = (rdf: RdfNode): string => {
        const text = jsonLdNode(rdf, first);
        first = false;
        return text;
      };
      return graphParts(plan, sources.nodes, { head: jsonLdHead(), node, tail: jsonLdTail() });
    }
    case 'csv':
      return csvParts(plan, sources.rows);
  }
}

function* csvParts(plan: ExportPlan, rows: PartSources['rows']): Generator<string> {
  const columns = csvColumns(plan, plan.collections);
  yield csvHeader(columns);
  for (const collection of plan.collections) yield* rows(collection, columns);
}

/** The plan's collections: all of the snapshot's, or those named, in name order. */
export function exportedCollections(source: ExportSource, named: readonly string[]): string[] {
  const all = Object.keys(source.manifest.collections);
  return (named.length === 0 ? all : [...new Set(named)]).sort(byCodeUnits);
}
