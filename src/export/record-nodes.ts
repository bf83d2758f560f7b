/**
 * A collection as a `skos:ConceptScheme` and a record as a `skos:Concept` (docs/vocabulary-export.md): the mapping
 * itself, read from the tables of vocabulary.ts. Everything here is pure except a successor given with links only,
 * which is read from the documents the snapshot stored of it.
 */
import { isObject } from '../json/is-object.js';
import { labelOf as recordLabel, type SnapshotRecord } from '../format/records.js';
import type { ExportSource } from './export-source.js';
import { sortStatements, wellFormed, type RdfNode, type RdfObject } from './rdf-node.js';
import { schemeTitle } from './scheme-title.js';
import type { Survey } from './survey.js';
import {
  DEFINITION_ATTRIBUTES,
  LINK_ATTRIBUTES,
  RELATIONSHIPS,
  STATUSES,
  SUCCESSOR,
  TEXT_ATTRIBUTES,
  type Prefixed,
} from './vocabulary.js';

export interface MappingContext {
  source: ExportSource;
  survey: Survey;
  /** The language tag of the labels and texts (--language), or undefined for none. */
  language: string | undefined;
}

/** A non-empty string, or undefined. */
function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? wellFormed(value) : undefined;
}

/** The record's label (records.ts: the same on its catalogue page and in the Changes page), well formed. */
export function labelOf(resource: SnapshotRecord): string {
  return wellFormed(recordLabel(resource));
}

export function definitionOf(resource: SnapshotRecord): string | undefined {
  for (const name of DEFINITION_ATTRIBUTES) {
    const text = textOf(resource.attributes[name]);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** The record's IRI: its own `links.self` at the source, or where spec 2.1 puts it when it has none. */
export function recordIri(source: ExportSource, collection: string, resource: SnapshotRecord): string {
  const iri = resource.self === null ? null : source.iris.of(resource.self);
  return iri ?? source.iris.recordFallback(collection, resource.id);
}

/** The IRI of a linkage `{type, id}`: a record of the collection that holds that type in this snapshot. */
function linkageIri(context: MappingContext, linkage: unknown): string | null {
  if (!isObject(linkage) || typeof linkage.type !== 'string' || typeof linkage.id !== 'string') return null;
  if (isObject(linkage.links) && typeof linkage.links.self === 'string') {
    const own = context.source.iris.of(linkage.links.self);
    if (own !== null) return own;
  }
  const collection = context.survey.collectionOfType.get(linkage.type);
  return collection === undefined ? null : context.source.iris.recordFallback(collection, linkage.id);
}

/**
 * The IRIs the relationship `name` of `record` points at; one given with links only (no `data`) leads where the
 * documents the snapshot stored of it say (the relationship document first: src/format/links-only.ts).
 */
export function relationshipTargets(
  context: MappingContext,
  record: { collection: string; resource: SnapshotRecord },
  name: string,
): string[] {
  const data = context.source.reader.relationshipData(record.collection, record.resource, name);
  if (data === undefined) return [];
  const items = Array.isArray(data) ? data : [data];
  return items.flatMap((item) => {
    const iri = linkageIri(context, item);
    return iri === null ? [] : [iri];
  });
}

function schemeIri(source: ExportSource, collection: string): string {
  return source.iris.of(source.layout.collectionUrl(collection)) ?? source.layout.collectionUrl(collection);
}

export function schemeNode(context: MappingContext, collection: string): RdfNode {
  const { language, source } = context;
  return {
    id: schemeIri(source, collection),
    type: 'skos:ConceptScheme',
    statements: sortStatements([
      ['dct:title', { text: schemeTitle(collection), language }],
      ['dct:identifier', { text: wellFormed(collection) }],
    ]),
  };
}

export function conceptNode(context: MappingContext, collection: string, resource: SnapshotRecord): RdfNode {
  const { language } = context;
  const scheme = schemeIri(context.source, collection);
  const statements: Array<[Prefixed, RdfObject]> = [
    ['skos:inScheme', { iri: scheme }],
    ['skos:topConceptOf', { iri: scheme }],
    ['skos:notation', { text: wellFormed(resource.id) }],
    ['skos:prefLabel', { text: labelOf(resource), language }],
  ];
  const definition = definitionOf(resource);
  if (definition !== undefined) statements.push(['skos:definition', { text: definition, language }]);
  for (const { name, property, tagged } of TEXT_ATTRIBUTES) {
    const text = textOf(resource.attributes[name]);
    if (text !== undefined) statements.push([property, { text, language: tagged ? language : undefined }]);
  }
  for (const { name, property } of LINK_ATTRIBUTES) {
    const text = textOf(resource.attributes[name]);
    const iri = text === undefined ? null : context.source.iris.external(text);
    if (iri !== null) statements.push([property, { iri }]);
  }
  const status = textOf(resource.attributes.status);
  if (status !== undefined) {
    const adms = STATUSES.get(status);
    statements.push(['adms:status', adms === undefined ? { text: status } : { iri: adms }]);
  }
  for (const name of Object.keys(resource.relationships)) {
    const property = RELATIONSHIPS.get(name);
    if (property === undefined) continue;
    const targets = relationshipTargets(context, { collection, resource }, name);
    for (const iri of targets) statements.push([property, { iri }]);
    if (name === SUCCESSOR && targets.length > 0) {
      statements.push(['owl:deprecated', { text: 'true', datatype: 'xsd:boolean' }]);
    }
  }
  return {
    id: recordIri(context.source, collection, resource),
    type: 'skos:Concept',
    statements: sortStatements(statements),
  };
}
