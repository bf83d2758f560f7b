/**
 * The JSON:API documents the sample API answers, built on demand from the in-memory records. Links are absolute on
 * the address the client used; collection, page and relationship links carry `format=api` as the real service's
 * do (spec 2.4, 4.1), a record's `links.self` has no query (spec 2.1).
 */
import { listDocument as buildListDocument, pageLinkQuery } from '../jsonapi/query-document.js';
import type { RelationshipDefinition } from './catalogue.js';
import { sourceOf, type ListPage } from './list-query.js';
import type { RelationshipValue, SampleRecord } from './records.js';
import type { SampleCollection, SampleData } from './sample-data.js';
import type { SampleVariants } from './variants.js';

/** Every link spelling of the API below `root` (absolute, ending in `/`). */
export class ApiLinks {
  constructor(readonly root: string) {}

  collection(collection: string): string {
    return `${this.root}${collection}/?format=api`;
  }

  /** spec 4.1: page links contain format=api and page%5Bnumber%5D=<n>; the query is sorted, as DRF writes it. */
  page(collection: string, page: number, extra: ReadonlyArray<readonly [string, string]> = []): string {
    return `${this.root}${collection}/?${pageLinkQuery([...extra, ['format', 'api']], page)}`;
  }

  record(collection: string, id: string): string {
    return `${this.root}${collection}/${id}/`;
  }

  /** spec 2.4: no trailing slash. */
  relationship(collection: string, id: string, name: string): string {
    return `${this.root}${collection}/${id}/relationships/${name}?format=api`;
  }

  related(collection: string, id: string, name: string): string {
    return `${this.root}${collection}/${id}/${name}/?format=api`;
  }

  /** A page of a paginated related document (`relatedPageSize`), spelled as list page links are. */
  relatedPage(collection: string, id: string, name: string, page: number): string {
    return `${this.root}${collection}/${id}/${name}/?${pageLinkQuery([['format', 'api']], page)}`;
  }
}

interface Linkage {
  type: string;
  id: string;
}

function linkage(definition: RelationshipDefinition, id: string): Linkage {
  return { type: definition.targetType, id };
}

/** Whether a relationship holds a list of ids (`Array.isArray` alone would type it `any[]`). */
function isIdList(value: RelationshipValue | undefined): value is readonly string[] {
  return Array.isArray(value);
}

/** The ids a relationship holds: a string, null, or a list (links-only relationships hold nothing). */
function targetsOf(record: SampleRecord, definition: RelationshipDefinition): RelationshipValue {
  const value = record.relationships[definition.name];
  if (definition.kind === 'to-many') return isIdList(value) ? value : [];
  return typeof value === 'string' ? value : null;
}

/** spec 2.1 resource object with spec 2.4 relationship objects. */
function resourceObject(links: ApiLinks, collection: SampleCollection, record: SampleRecord): unknown {
  const relationships: Record<string, unknown> = {};
  for (const definition of collection.relationships) {
    const relationshipLinks = {
      self: links.relationship(collection.name, record.id, definition.name),
      related: links.related(collection.name, record.id, definition.name),
    };
    if (definition.kind === 'links-only') {
      // spec 2.4: successor carries links only, no data member.
      relationships[definition.name] = { links: relationshipLinks };
    } else if (definition.kind === 'to-one') {
      const target = targetsOf(record, definition);
      relationships[definition.name] = {
        links: relationshipLinks,
        data: typeof target === 'string' ? linkage(definition, target) : null,
      };
    } else {
      const targets = targetsOf(record, definition) as readonly string[];
      // spec 2.4: meta.count equals the length of data.
      relationships[definition.name] = {
        meta: { count: targets.length },
        data: targets.map((id) => linkage(definition, id)),
        links: relationshipLinks,
      };
    }
  }
  return {
    type: collection.type,
    id: record.id,
    attributes: record.attributes,
    relationships,
    links: { self: links.record(collection.name, record.id) },
  };
}

/** spec 4: one member per collection of spec 2.2. */
export function rootDocument(links: ApiLinks, data: SampleData): unknown {
  const members: Record<string, string> = {};
  for (const collection of data.collections) members[collection.name] = links.collection(collection.name);
  return { data: members };
}

/** spec 4.1, with `included` when the query asked for it. */
export function listDocument(links: ApiLinks, collection: SampleCollection, page: ListPage): unknown {
  return buildListDocument({
    pageLink: (n) => links.page(collection.name, n, page.linkParams),
    data: page.items.map((record) => resourceObject(links, collection, record)),
    included: page.included?.map((entry) => resourceObject(links, sourceOf(entry), entry.record)) ?? null,
    page: page.page,
    pages: page.pages,
    count: page.count,
  });
}

/** With `recordMeta`, the first record of the first collection with records carries a meta its list entry lacks. */
export function recordDocument(
  links: ApiLinks,
  data: SampleData,
  collection: SampleCollection,
  record: SampleRecord,
  variants: SampleVariants,
): unknown {
  const document: Record<string, unknown> = { data: resourceObject(links, collection, record) };
  const first = data.collections.find((candidate) => candidate.records.length > 0);
  if (variants.recordMeta && first === collection && first.records[0] === record) {
    document.meta = { note: 'served with this record only' };
  }
  return document;
}

/** docs/source-api.md#relationships: relationship documents carry only links.self (and meta.count for to-many). */
export function relationshipDocument(
  links: ApiLinks,
  collection: SampleCollection,
  record: SampleRecord,
  definition: RelationshipDefinition,
  variants: SampleVariants,
): unknown {
  const self: Record<string, string> = { self: links.relationship(collection.name, record.id, definition.name) };
  if (variants.relationshipDocuments === 'extended') {
    self.related = links.related(collection.name, record.id, definition.name);
  }
  const targets = targetsOf(record, definition);
  const toMany = definition.kind === 'to-many' && isIdList(targets);
  const data = toMany
    ? targets.map((id) => linkage(definition, id))
    : typeof targets === 'string'
      ? linkage(definition, targets)
      : null;
  const meta = toMany ? { meta: { count: targets.length } } : {};
  switch (variants.relationshipDocuments) {
    case 'plain':
      return { data, links: self, ...meta };
    case 'reordered':
      return { links: self, ...meta, data };
    case 'extended':
      return { data, links: self, ...meta, jsonapi: { version: '1.0' } };
  }
}

/**
 * The related resources in full: in one document (docs/source-api.md), or with `relatedPageSize` a to-many one in
 * pages (JSON:API allows paginating a related list; the central service does not). Throws RangeError for a page past
 * the last.
 */
export function relatedDocument(
  links: ApiLinks,
  data: SampleData,
  collection: SampleCollection,
  record: SampleRecord,
  definition: RelationshipDefinition,
  variants: SampleVariants,
  page: number,
): unknown {
  const target = data.byName.get(definition.target);
  const resolve = (id: string): unknown => {
    const found = target?.byId.get(id);
    return found === undefined || target === undefined ? null : resourceObject(links, target, found);
  };
  const targets = targetsOf(record, definition);
  const size = variants.relatedPageSize;
  if (definition.kind === 'to-many' && isIdList(targets) && size > 0) {
    const pages = Math.max(1, Math.ceil(targets.length / size));
    if (page > pages) throw new RangeError(`page ${page} of ${pages}`);
    return buildListDocument({
      pageLink: (n) => links.relatedPage(collection.name, record.id, definition.name, n),
      data: targets.slice((page - 1) * size, page * size).map(resolve),
      included: null,
      page,
      pages,
      count: targets.length,
    });
  }
  if (page !== 1) throw new RangeError(`page ${page} of 1`);
  if (definition.kind === 'to-many' && isIdList(targets)) return { data: targets.map(resolve) };
  return { data: typeof targets === 'string' ? resolve(targets) : null };
}
