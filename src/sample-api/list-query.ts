/**
 * Query strings of the sample API, answered by the shared query engine (src/jsonapi/query*.ts) so that
 * `cv-snapshot serve` answers every query exactly as this source does. A list takes `page[number]`, `page[size]`,
 * `sort`, `filter[...]` and `include`; any other address takes only `format`. A wrong parameter is kept as the
 * `problem` rather than thrown, because the real service negotiates the media type (406) before it validates the
 * query.
 */
import { QueryError } from '../jsonapi/query-error.js';
import {
  runListQuery,
  type CollectionSchema,
  type IncludedRecord,
  type QueryCollection,
  type RecordAccess,
} from '../jsonapi/query-run.js';
import { FORMAT, PAGE_NUMBER, decodeQuery, parseListQuery, parsePlainQuery, type ListQuery } from '../jsonapi/query.js';
import type { SampleRecord } from './records.js';
import type { SampleCollection, SampleData } from './sample-data.js';

export { FORMAT, PAGE_NUMBER };

export interface ParsedQuery {
  /** Last `format` value, or null. */
  readonly format: string | null;
  /** The list query, on a list address without problem. */
  readonly list: ListQuery | null;
  /** The 400 to answer once negotiation has passed, or null. */
  readonly problem: QueryError | null;
}

function lastFormat(rawQuery: string): string | null {
  let format: string | null = null;
  for (const [key, value] of decodeQuery(rawQuery)) if (key === FORMAT) format = value;
  return format;
}

export function parseQuery(rawQuery: string, isList: boolean): ParsedQuery {
  try {
    if (isList) {
      const list = parseListQuery(rawQuery);
      return { format: list.format, list, problem: null };
    }
    return { format: parsePlainQuery(rawQuery), list: null, problem: null };
  } catch (error) {
    if (error instanceof QueryError) return { format: lastFormat(rawQuery), list: null, problem: error };
    throw error;
  }
}

export interface ListPage {
  readonly items: readonly SampleRecord[];
  /** spec 4.1 meta.pagination */
  readonly page: number;
  readonly pages: number;
  readonly count: number;
  /** Parameters other than page[number] that the page links carry. */
  readonly linkParams: ReadonlyArray<readonly [string, string]>;
  /** What `include` asked for, or null when it was not asked. */
  readonly included: ReadonlyArray<IncludedRecord<SampleRecord>> | null;
}

type SampleQueryCollection = QueryCollection<SampleRecord> & { readonly source: SampleCollection };

function schemaOf(collection: SampleCollection): CollectionSchema {
  return {
    attributes: new Set(collection.attributes),
    relationships: new Map(
      collection.relationships.map((definition) => [
        definition.name,
        { kind: definition.kind, targetType: definition.targetType },
      ]),
    ),
  };
}

/** The engine's view of a data set, built once per data set. */
const views = new WeakMap<
  SampleData,
  { byName: Map<string, SampleQueryCollection>; access: RecordAccess<SampleRecord> }
>();

function viewOf(data: SampleData) {
  let view = views.get(data);
  if (view === undefined) {
    const byName = new Map<string, SampleQueryCollection>();
    const byType = new Map<string, SampleQueryCollection>();
    for (const collection of data.collections) {
      const entry: SampleQueryCollection = {
        name: collection.name,
        type: collection.type,
        schema: schemaOf(collection),
        records: collection.records,
        byId: (id) => collection.byId.get(id),
        source: collection,
      };
      byName.set(collection.name, entry);
      byType.set(collection.type, entry);
    }
    const access: RecordAccess<SampleRecord> = {
      id: (record) => record.id,
      attribute: (record, name) => record.attributes[name],
      targets: (record, name) => {
        const value = record.relationships[name];
        if (value === undefined) return null;
        if (value === null) return [];
        return typeof value === 'string' ? [value] : value;
      },
      collectionOfType: (type) => byType.get(type),
    };
    view = { byName, access };
    views.set(data, view);
  }
  return view;
}

/** The page of `collection` that `query` asks for, at `pageSize` records per page unless it says otherwise. */
export function selectPage(
  data: SampleData,
  collection: SampleCollection,
  query: ListQuery,
  pageSize: number,
): ListPage {
  const view = viewOf(data);
  const entry = view.byName.get(collection.name);
  if (entry === undefined) throw new Error(`unknown collection ${collection.name}`);
  const result = runListQuery(entry, query, view.access, pageSize);
  return { ...result, linkParams: query.linkParams.filter(([key]) => key !== FORMAT) };
}

/** The sample collection an included record comes from. */
export function sourceOf(included: IncludedRecord<SampleRecord>): SampleCollection {
  return (included.collection as SampleQueryCollection).source;
}
