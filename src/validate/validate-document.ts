/**
 * Validation of one fetched document (docs/architecture.md#validation): the JSON:API 1.0 structure, the shape the spec
 * gives the address it came from, the tabulated types' exact shapes, and the checks that need nothing but this
 * document. It also returns the document's compact summary for the cross-document checks (invariants.ts).
 *
 * This runs on every document of a crawl, so a valid document costs one zod parse of its shape plus one per
 * resource of a tabulated type; the generic schema is consulted again only to explain a failure.
 */
import type * as z from 'zod';
import type { ApiLocation } from '../url/api-location.js';
import { UrlSpace } from '../url/url-space.js';
import {
  listDocument,
  recordDocument,
  relatedDocument,
  relationshipDocument,
  rootIndexDocument,
} from './document-shapes.js';
import { isObject } from '../json/is-object.js';
import { DocumentFindings, type JsonObject } from './document-findings.js';
import type { Finding } from './finding.js';
import { jsonApiDocument } from './json-api-schema.js';
import { checkResource } from './resource-checks.js';
import { escapePointerSegment, type RuleName } from './rules.js';
import type { DocumentSummary } from './summary.js';

export type { DocumentSummary } from './summary.js';

export interface DocumentCheck {
  findings: Finding[];
  summary: DocumentSummary;
}

type Kind = ApiLocation['kind'];

const SHAPES: Record<Exclude<Kind, 'root' | 'other'>, { schema: z.ZodType; rule: RuleName }> = {
  list: { schema: listDocument, rule: 'list.shape' },
  record: { schema: recordDocument, rule: 'record.shape' },
  relationship: { schema: relationshipDocument, rule: 'relationship.shape' },
  related: { schema: relatedDocument, rule: 'related.shape' },
};

function subjectOf(location: ApiLocation): string {
  switch (location.kind) {
    case 'root':
      return 'The root index';
    case 'list':
      return `Page ${location.page} of ${location.collection}`;
    case 'record':
      return `Record ${location.collection}/${location.id}`;
    case 'relationship':
      return `Relationship ${location.relationship} of ${location.collection}/${location.id}`;
    case 'related':
      return `Related ${location.relationship} of ${location.collection}/${location.id}`;
    case 'other':
      return 'The document';
  }
}

/**
 * Parses `doc` against the shape of its address. On failure the generic JSON:API schema tells which problems
 * break JSON:API itself (`jsonapi.document`) and which only the spec's shape; returns the pointers of the former
 * so later checks do not restate them.
 */
function checkStructure(out: DocumentFindings, doc: unknown, location: ApiLocation, subject: string): string[] {
  if (location.kind === 'root') {
    const result = rootIndexDocument.safeParse(doc);
    if (!result.success) out.addIssues(result.error.issues, [], subject, () => 'root.shape');
    return [];
  }
  if (location.kind === 'other') {
    const result = jsonApiDocument.safeParse(doc);
    if (result.success) return [];
    const start = out.findings.length;
    out.addIssues(result.error.issues, [], subject, () => 'jsonapi.document');
    return out.findings.slice(start).map((f) => f.pointer);
  }
  const shape = SHAPES[location.kind];
  const result = shape.schema.safeParse(doc);
  if (result.success) return [];
  const generic = jsonApiDocument.safeParse(doc);
  const start = out.findings.length;
  if (!generic.success) out.addIssues(generic.error.issues, [], subject, () => 'jsonapi.document');
  const genericPointers = out.findings.slice(start).map((f) => f.pointer);
  const shapeStart = out.findings.length;
  out.addIssues(result.error.issues, [], subject, () => shape.rule);
  out.dropRestated(shapeStart, genericPointers);
  return genericPointers;
}

function checkIncluded(out: DocumentFindings, doc: JsonObject): void {
  const included = doc.included;
  if (!Array.isArray(included)) return;
  for (let i = 0; i < included.length; i++) checkResource(out, included[i], ['included', i], undefined);
}

/** Where a link of the document points in the API, or undefined when it is not a usable URL. */
function locateLink(address: string, out: DocumentFindings): ApiLocation | undefined {
  try {
    return out.urls.resolve(address, out.url).location;
  } catch {
    return undefined;
  }
}

function checkRootIndex(out: DocumentFindings, doc: JsonObject): DocumentSummary {
  const data = isObject(doc.data) ? doc.data : {};
  for (const name in data) {
    const address = data[name];
    if (typeof address !== 'string') continue;
    const target = locateLink(address, out);
    if (target?.kind !== 'list' || target.collection !== name || target.page !== 1) {
      out.add(
        `/data/${escapePointerSegment(name)}`,
        'root.links',
        `The root index gives collection ${name} the address ${JSON.stringify(address)}, which is not ` +
          `${out.root}${name}/; the crawl cannot reach the collection through it.`,
      );
    }
  }
  return { kind: 'root', collections: Object.keys(data) };
}

/** A pagination number as list.shape accepts it; anything else was reported there and counts as unknown. */
function integerOrNull(value: unknown, min: number): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= min ? value : null;
}

function linkState(links: JsonObject, name: string): 'link' | 'null' | 'absent' {
  const value = links[name];
  return value === null ? 'null' : typeof value === 'string' ? 'link' : 'absent';
}

function checkListPage(
  out: DocumentFindings,
  doc: JsonObject,
  location: Extract<ApiLocation, { kind: 'list' }>,
): DocumentSummary {
  const { collection, page } = location;
  const data = Array.isArray(doc.data) ? doc.data : [];
  for (let i = 0; i < data.length; i++) checkResource(out, data[i], ['data', i], collection);
  // The resources of data come first in the summary, before those of included.
  const listed = out.resources.length;
  checkIncluded(out, doc);

  const pagination = isObject(doc.meta) && isObject(doc.meta.pagination) ? doc.meta.pagination : {};
  const pageValue = integerOrNull(pagination.page, 1);
  const pages = integerOrNull(pagination.pages, 1);
  const count = integerOrNull(pagination.count, 0);
  if (pageValue !== null && pageValue !== page) {
    out.add(
      '/meta/pagination/page',
      'pagination.page',
      `Page ${page} of ${collection} says it is page ${pageValue}; clients that loop on meta.pagination.page will ` +
        `skip or repeat pages.`,
    );
  }
  const links = isObject(doc.links) ? doc.links : {};
  // spec 4.1: first is page 1, last the last page, next and prev the neighbours. A next on the last page or a prev
  // on the first is pagination.next/prev's business (invariants.ts), not a wrong address.
  const expected: Array<[string, number | null]> = [
    ['first', 1],
    ['last', pages],
  ];
  if (pages === null || page < pages) expected.push(['next', page + 1]);
  if (page > 1) expected.push(['prev', page - 1]);
  for (const [name, expectedPage] of expected) {
    const address = links[name];
    if (typeof address !== 'string') continue;
    const target = locateLink(address, out);
    if (
      target?.kind !== 'list' ||
      target.collection !== collection ||
      (expectedPage !== null && target.page !== expectedPage)
    ) {
      out.add(
        `/links/${name}`,
        'pagination.links',
        `Page ${page} of ${collection}: links.${name} ${JSON.stringify(address)} does not address ` +
          `${expectedPage === null ? 'a page' : `page ${expectedPage}`} of ${collection}; clients following it ` +
          `will read the wrong records.`,
      );
    }
  }
  return {
    kind: 'list',
    collection,
    page,
    pages,
    count,
    records: data.length,
    listed,
    next: linkState(links, 'next'),
    prev: linkState(links, 'prev'),
    resources: out.resources,
    targets: out.targets,
    roots: out.roots,
  };
}

function checkRecord(out: DocumentFindings, doc: JsonObject, location: Extract<ApiLocation, { kind: 'record' }>): void {
  const data = doc.data;
  if (!isObject(data)) return;
  checkResource(out, data, ['data'], location.collection);
  if (typeof data.id === 'string' && data.id !== location.id) {
    out.add(
      '/data/id',
      'record.id',
      `Record ${location.collection}/${location.id} holds the record with id ${data.id}; the service answers this ` +
        `address with another record.`,
    );
  }
  checkIncluded(out, doc);
}

function checkResources(out: DocumentFindings, doc: JsonObject): void {
  const data = doc.data;
  if (Array.isArray(data)) {
    for (let i = 0; i < data.length; i++) checkResource(out, data[i], ['data', i], undefined);
  } else {
    checkResource(out, data, ['data'], undefined);
  }
  checkIncluded(out, doc);
}

function checkRelationshipDocument(out: DocumentFindings, doc: JsonObject, relationship: string): void {
  const data = doc.data;
  if (Array.isArray(data)) {
    for (let i = 0; i < data.length; i++) out.addTarget(relationship, data[i], `/data/${i}`);
  } else {
    out.addTarget(relationship, data, '/data');
  }
}

/**
 * Validates the document fetched from `url` (any spelling) under the canonical `root`. `urls` is the run's space of
 * parsed URLs (a crawl passes its own, so the links it parsed are not parsed again).
 */
export function validateDocument(
  doc: unknown,
  url: string,
  root: string,
  urls: UrlSpace = new UrlSpace(root),
): DocumentCheck {
  const { url: canonical, location } = urls.resolve(url);
  const out = new DocumentFindings(canonical, root, urls);
  const genericPointers = checkStructure(out, doc, location, subjectOf(location));
  const body = isObject(doc) ? doc : {};
  const structureEnd = out.findings.length;
  let summary: DocumentSummary;
  switch (location.kind) {
    case 'root':
      summary = checkRootIndex(out, body);
      break;
    case 'list':
      summary = checkListPage(out, body, location);
      break;
    case 'record':
      checkRecord(out, body, location);
      summary = { kind: 'record', resources: out.resources, targets: out.targets, roots: out.roots };
      break;
    case 'relationship':
      checkRelationshipDocument(out, body, location.relationship);
      summary = { kind: 'relationship', resources: out.resources, targets: out.targets, roots: out.roots };
      break;
    case 'related':
    case 'other':
      checkResources(out, body);
      summary = { kind: location.kind, resources: out.resources, targets: out.targets, roots: out.roots };
      break;
  }
  out.dropRestated(structureEnd, genericPointers);
  return { findings: out.findings, summary };
}
