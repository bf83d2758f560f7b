/**
 * Runs a parsed list query (query.ts) over a collection's records: filter, sort, paginate, include. Record-shape
 * agnostic: the sample API runs it over its in-memory records and `cv-snapshot serve` over the resource objects of
 * a snapshot, each through a `RecordAccess`.
 *
 * Decisions shared by both (docs/source-api.md#queries, docs/hosting.md):
 * - Order: without `sort`, the collection's own order (the source's). With `sort`, a stable sort on the keys in
 *   turn, ties broken by numeric id. Strings compare by UTF-16 code unit (a database's "C" collation); null sorts
 *   after every value ascending and before every value descending, as PostgreSQL does.
 * - `page[size]` is honoured whatever its size: no cap. The framework's default cap (100) would cut a client's
 *   `page[size]=10000` ("give me everything") short; the real front end relies on getting everything.
 * - `included` is present whenever `include` was asked, even empty; sorted by type, then id, without the primary
 *   records (as Django REST framework JSON:API renders it).
 */
import { QueryError, invalidParameter } from './query-error.js';
import { PAGE_NUMBER, type FilterSpec, type ListQuery, type SortKey } from './query.js';
import { byCodeUnits } from '../util/code-unit-order.js';

export type RelationshipKind = 'to-one' | 'to-many' | 'links-only';

export interface CollectionSchema {
  readonly attributes: ReadonlySet<string>;
  /** Relationship name → kind and the resource type of its targets (null when no record says). */
  readonly relationships: ReadonlyMap<string, { readonly kind: RelationshipKind; readonly targetType: string | null }>;
  /** The schema is not known (an empty collection in a snapshot): any field name is taken; nothing can match. */
  readonly open?: boolean;
}

export interface QueryCollection<R> {
  readonly name: string;
  readonly type: string;
  readonly schema: CollectionSchema;
  readonly records: readonly R[];
  byId(id: string): R | undefined;
}

export interface RecordAccess<R> {
  id(record: R): string;
  attribute(record: R, name: string): unknown;
  /** Ids a relationship holds ([] for a null to-one), or null when it holds no linkage (links only, or absent). */
  targets(record: R, relationship: string): readonly string[] | null;
  /** The collection whose records have this type, if known. */
  collectionOfType(type: string): QueryCollection<R> | undefined;
}

export interface IncludedRecord<R> {
  readonly collection: QueryCollection<R>;
  readonly record: R;
}

export interface QueryResult<R> {
  readonly items: readonly R[];
  /** spec 4.1 meta.pagination */
  readonly page: number;
  readonly pages: number;
  readonly count: number;
  /** The records `include` asked for, or null when it was not asked. */
  readonly included: ReadonlyArray<IncludedRecord<R>> | null;
}

const invalidPage = (): QueryError => new QueryError(404, PAGE_NUMBER, 'Invalid page.');

/** Django's paginator: no number is page 1, `last` the last page; anything else that names no page is a 404. */
export function resolvePageNumber(raw: string | undefined, pages: number): number {
  if (raw === undefined || raw === '') return 1;
  if (raw === 'last') return pages;
  if (!/^\s*\+?\d+\s*$/.test(raw)) throw invalidPage();
  const page = Number.parseInt(raw.trim(), 10);
  if (page < 1 || page > pages) throw invalidPage();
  return page;
}

function compareIds(a: string, b: string): number {
  const numeric = /^\d+$/.test(a) && /^\d+$/.test(b);
  if (numeric && a.length !== b.length) return a.length - b.length;
  return byCodeUnits(a, b);
}

/** JSON text to order objects and arrays by; one nested too deep to write orders as empty text, never a failure. */
function sortText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '';
  }
}

/** Ascending order of two values; null and undefined after everything. */
function compareValues(a: unknown, b: unknown): number {
  const aMissing = a === null || a === undefined;
  const bMissing = b === null || b === undefined;
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a !== typeof b) return typeof a < typeof b ? -1 : 1;
  const x = typeof a === 'string' ? a : sortText(a);
  const y = typeof b === 'string' ? b : sortText(b);
  return byCodeUnits(x, y);
}

function matches(value: unknown, filter: FilterSpec): boolean {
  // Only a JSON scalar matches: null, an object or a list never does.
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false;
  const text = String(value);
  return filter.lookup === 'iexact' ? text.toUpperCase() === filter.value.toUpperCase() : text === filter.value;
}

class Runner<R> {
  constructor(
    private readonly collection: QueryCollection<R>,
    private readonly access: RecordAccess<R>,
  ) {}

  /** The collection a relationship of `schema` points at; undefined when unknown (nothing then matches). */
  private targetCollection(schema: CollectionSchema, relationship: string): QueryCollection<R> | undefined {
    const definition = schema.relationships.get(relationship);
    return definition?.targetType == null ? undefined : this.access.collectionOfType(definition.targetType);
  }

  private knowsField(schema: CollectionSchema, field: string, relationshipsToo: boolean): boolean {
    if (schema.open === true || field === 'id' || schema.attributes.has(field)) return true;
    const relationship = schema.relationships.get(field);
    return relationshipsToo && relationship !== undefined && relationship.kind !== 'links-only';
  }

  /** A function that gives each record's values for a filter; throws 400 for a field the collection lacks. */
  private filterValues(filter: FilterSpec): (record: R) => unknown[] {
    const { schema } = this.collection;
    const invalid = () => invalidParameter(filter.parameter, `invalid filter: ${filter.parameter}`);
    const own = (record: R, field: string, from: CollectionSchema): unknown[] => {
      if (field === 'id') return [this.access.id(record)];
      if (from.attributes.has(field)) return [this.access.attribute(record, field)];
      return [...(this.access.targets(record, field) ?? [])];
    };
    if (filter.relationship === null) {
      if (!this.knowsField(schema, filter.field, true)) throw invalid();
      return (record) => own(record, filter.field, schema);
    }
    const relationship = filter.relationship;
    const definition = schema.relationships.get(relationship);
    if (schema.open !== true && (definition === undefined || definition.kind === 'links-only')) throw invalid();
    const target = this.targetCollection(schema, relationship);
    if (target !== undefined && !this.knowsField(target.schema, filter.field, true)) throw invalid();
    return (record) => {
      const values: unknown[] = [];
      for (const id of this.access.targets(record, relationship) ?? []) {
        const related = target?.byId(id);
        if (related !== undefined) for (const value of own(related, filter.field, target!.schema)) values.push(value);
        else if (filter.field === 'id') values.push(id);
      }
      return values;
    };
  }

  filter(records: readonly R[], filters: readonly FilterSpec[]): readonly R[] {
    const tests = filters.map((filter) => {
      const values = this.filterValues(filter);
      return (record: R) => values(record).some((value) => matches(value, filter));
    });
    return tests.length === 0 ? records : records.filter((record) => tests.every((test) => test(record)));
  }

  sort(records: readonly R[], keys: readonly SortKey[]): readonly R[] {
    if (keys.length === 0) return records;
    const { schema } = this.collection;
    const bad = keys.filter((key) => !this.knowsField(schema, key.field, false));
    if (bad.length > 0) {
      const terms = bad.map((key) => `${key.descending ? '-' : ''}${key.field}`).join(',');
      throw invalidParameter('sort', `invalid sort parameter${bad.length > 1 ? 's' : ''}: ${terms}`);
    }
    const value = (record: R, field: string): unknown => (field === 'id' ? null : this.access.attribute(record, field));
    return [...records].sort((a, b) => {
      for (const key of keys) {
        const order =
          key.field === 'id'
            ? compareIds(this.access.id(a), this.access.id(b))
            : compareValues(value(a, key.field), value(b, key.field));
        if (order !== 0) return key.descending ? -order : order;
      }
      return compareIds(this.access.id(a), this.access.id(b));
    });
  }

  include(items: readonly R[], names: readonly string[]): Array<IncludedRecord<R>> {
    const { schema } = this.collection;
    for (const name of names) {
      const definition = schema.relationships.get(name);
      if (schema.open !== true && (definition === undefined || definition.kind === 'links-only')) {
        throw invalidParameter('include', `This endpoint does not support the include parameter for path ${name}`);
      }
    }
    const primary = new Set(items.map((record) => `${this.collection.type}\u0000${this.access.id(record)}`));
    const found = new Map<string, IncludedRecord<R> & { type: string; id: string }>();
    for (const name of names) {
      const target = this.targetCollection(schema, name);
      if (target === undefined) continue;
      for (const record of items) {
        for (const id of this.access.targets(record, name) ?? []) {
          const key = `${target.type}\u0000${id}`;
          const related = target.byId(id);
          if (related === undefined || primary.has(key) || found.has(key)) continue;
          found.set(key, { collection: target, record: related, type: target.type, id });
        }
      }
    }
    // Django REST framework JSON:API: sorted(type), then sorted(id) — ids are text there, so "10" < "9".
    return [...found.values()]
      .sort((a, b) => byCodeUnits(a.type, b.type) || byCodeUnits(a.id, b.id))
      .map(({ collection, record }) => ({ collection, record }));
  }
}

/** One page of the collection as `query` asks for it; throws QueryError (400, or 404 for a page that is not). */
export function runListQuery<R>(
  collection: QueryCollection<R>,
  query: ListQuery,
  access: RecordAccess<R>,
  defaultPageSize: number,
): QueryResult<R> {
  const runner = new Runner(collection, access);
  const filtered = runner.filter(collection.records, query.filters);
  const sorted = runner.sort(filtered, query.sort);
  // Validate include before paginating, so a wrong include is a 400 whatever the page.
  if (query.include !== undefined) runner.include([], query.include);
  const size = query.pageSize ?? defaultPageSize;
  const count = sorted.length;
  const pages = Math.max(1, Math.ceil(count / size));
  const page = resolvePageNumber(query.pageNumber, pages);
  const items = sorted.slice((page - 1) * size, page * size);
  const included = query.include === undefined ? null : runner.include(items, query.include);
  return { items, page, pages, count, included };
}
