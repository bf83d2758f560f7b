/**
 * The records as CSV (RFC 4180: CRLF line ends, fields quoted when they hold a comma, a quote or a line break,
 * quotes doubled; UTF-8 without a byte-order mark), one row per record, under a header row.
 *
 * A text that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a leading `'`, as OWASP
 * advises: a spreadsheet would otherwise run it as a formula, and a vocabulary's terms come from anyone who may
 * propose one (docs/vocabulary-export.md#the-formats).
 */
import { byCodeUnits } from '../util/code-unit-order.js';
import { definitionOf, labelOf, relationshipTargets, recordIri, type MappingContext } from './record-nodes.js';
import type { SnapshotRecord } from '../format/records.js';
import { stringifyJson } from '../json/parse-json.js';
import { wellFormed } from './rdf-node.js';

/** The columns every row has, first; then the attributes, then the relationships. */
const FIXED = ['uri', 'collection', 'id', 'label', 'definition', 'status'] as const;
/** Attributes that are a fixed column already. */
const AS_FIXED = new Set(['definition', 'status']);

export interface CsvColumns {
  attributes: string[];
  relationships: string[];
}

/** The columns of an export of `collections`: every attribute and relationship their records carry. */
export function csvColumns(context: MappingContext, collections: readonly string[]): CsvColumns {
  const attributes = new Set<string>();
  const relationships = new Set<string>();
  for (const collection of collections) {
    for (const name of context.survey.attributes.get(collection) ?? []) if (!AS_FIXED.has(name)) attributes.add(name);
    for (const name of context.survey.relationships.get(collection) ?? []) relationships.add(name);
  }
  return { attributes: [...attributes].sort(byCodeUnits), relationships: [...relationships].sort(byCodeUnits) };
}

/** A column's name in the header: an attribute called like a fixed column (`uri`) gets `attribute:` before it. */
function columnName(name: string): string {
  return (FIXED as readonly string[]).includes(name) ? `attribute:${name}` : name;
}

const FORMULA_START = /^[=+\-@\t\r]/;

function field(text: string): string {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function row(cells: readonly string[]): string {
  return `${cells.map((cell) => field(wellFormed(cell))).join(',')}\r\n`;
}

export function csvHeader(columns: CsvColumns): string {
  return row([...FIXED, ...columns.attributes.map(columnName), ...columns.relationships.map(columnName)]);
}

/** An attribute's value as a cell: text as it is, null as an empty cell, anything else as its JSON. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : stringifyJson(value);
}

export function csvRow(
  context: MappingContext,
  columns: CsvColumns,
  collection: string,
  resource: SnapshotRecord,
): string {
  const { attributes } = resource;
  return row([
    recordIri(context.source, collection, resource),
    collection,
    resource.id,
    labelOf(resource),
    definitionOf(resource) ?? '',
    cell(attributes.status),
    // Own members only: a column named `constructor` must not read Object.prototype's.
    ...columns.attributes.map((name) => cell(Object.hasOwn(attributes, name) ? attributes[name] : null)),
    ...columns.relationships.map((name) => relationshipTargets(context, { collection, resource }, name).join(' ')),
  ]);
}
