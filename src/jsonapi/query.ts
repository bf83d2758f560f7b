/**
 * The query language of a collection list, as the real service (Django REST framework JSON:API) reads it and as
 * its real clients send it (docs/source-api.md#queries): `page[number]`, `page[size]`, `sort`, `filter[...]`,
 * `include`, and `format` (ignored here; the caller negotiates it). Parsing is pure syntax; the field names are checked
 * against the collection when the query runs (query-run.ts). Shared by the sample API and `cv-snapshot serve`, so both
 * answer every query, and every wrong query, the same way.
 *
 * Brackets may come raw (`page[size]`, as axios sends them) or percent-encoded in either case (`page%5Bsize%5D`,
 * `page%5bsize%5d`, as Python requests sends them): the query is decoded before anything looks at it.
 */
import { invalidParameter } from './query-error.js';

export const FORMAT = 'format';
export const PAGE_NUMBER = 'page[number]';
const PAGE_SIZE = 'page[size]';
const SORT = 'sort';
const INCLUDE = 'include';

/** Django lookups this engine answers; `exact` is what a filter without a lookup means. */
export const LOOKUPS = ['exact', 'iexact'] as const;
export type Lookup = (typeof LOOKUPS)[number];

/** A field of a record or of the record a to-one/to-many relationship points at. */
export interface FieldPath {
  /** The relationship to follow first (`action_category` in `action_category__term`), or null. */
  readonly relationship: string | null;
  /** An attribute name, `id`, or (without `relationship`) a relationship name, meaning the ids it holds. */
  readonly field: string;
}

export interface FilterSpec extends FieldPath {
  /** The parameter as the client spelled it after decoding, for error messages. */
  readonly parameter: string;
  readonly lookup: Lookup;
  readonly value: string;
}

export interface SortKey {
  readonly field: string;
  readonly descending: boolean;
}

export interface ListQuery {
  /** Raw `page[number]` text (resolved against the page count when the query runs), or undefined. */
  readonly pageNumber: string | undefined;
  readonly pageSize: number | undefined;
  readonly sort: readonly SortKey[];
  readonly filters: readonly FilterSpec[];
  /** Relationship names to include; undefined when `include` was not asked. */
  readonly include: readonly string[] | undefined;
  /** Every parameter but `page[number]`, decoded, in request order: what the page links carry along. */
  readonly linkParams: ReadonlyArray<readonly [string, string]>;
  /** The last `format` value, or null. */
  readonly format: string | null;
}

const FILTER = /^filter\[([\w.-]+)\]$/;
const FIELD = /^[A-Za-z_][\w-]*$/;
/** Django's int() accepts surrounding blanks and a plus sign. */
const WHOLE_NUMBER = /^\s*\+?\d+\s*$/;

/** Decoded parameters in request order (URLSearchParams: `+` is a space, `%5B`/`%5b` a bracket). */
export function decodeQuery(rawQuery: string): Array<[string, string]> {
  return rawQuery === '' ? [] : [...new URLSearchParams(rawQuery)];
}

/** `action_category__term`, `status.iexact` (DJA turns `.` into `__`) → segments; null when malformed. */
function pathSegments(path: string): string[] | null {
  const segments = path.replace(/\./g, '__').split('__');
  return segments.every((segment) => FIELD.test(segment)) ? segments : null;
}

function parseFilter(parameter: string, path: string, value: string): FilterSpec {
  const segments = pathSegments(path);
  const invalid = () => invalidParameter(parameter, `invalid filter: ${parameter}`);
  if (segments === null) throw invalid();
  let lookup: Lookup = 'exact';
  const last = segments.at(-1);
  if (last !== undefined && (LOOKUPS as readonly string[]).includes(last) && segments.length > 1) {
    lookup = last as Lookup;
    segments.pop();
  }
  if (value === '') throw invalidParameter(parameter, `missing value for query parameter ${parameter}`);
  const [first, second] = segments;
  if (first === undefined || segments.length > 2) {
    throw invalidParameter(
      parameter,
      `invalid filter: ${parameter} (one relationship at most, lookups: ${LOOKUPS.join(', ')})`,
    );
  }
  return second === undefined
    ? { parameter, relationship: null, field: first, lookup, value }
    : { parameter, relationship: first, field: second, lookup, value };
}

function parseSort(value: string): SortKey[] {
  const keys = value.split(',').map((term) => term.trim());
  const bad = keys.filter((term) => !FIELD.test(term.replace(/^-/, '')));
  if (bad.length > 0 || keys.length === 0) {
    throw invalidParameter(SORT, `invalid sort parameter${bad.length > 1 ? 's' : ''}: ${bad.join(',')}`);
  }
  return keys.map((term) => ({ field: term.replace(/^-/, ''), descending: term.startsWith('-') }));
}

function parseInclude(value: string): string[] {
  const names = value.split(',');
  for (const name of names) {
    if (!FIELD.test(name)) {
      throw invalidParameter(INCLUDE, `This endpoint does not support the include parameter for path ${name}`);
    }
  }
  return names;
}

function parsePageSize(value: string): number {
  const size = WHOLE_NUMBER.test(value) ? Number.parseInt(value.trim(), 10) : Number.NaN;
  if (!Number.isSafeInteger(size) || size < 1) {
    throw invalidParameter(PAGE_SIZE, `${PAGE_SIZE} must be a whole number of at least 1, not "${value}"`);
  }
  return size;
}

/**
 * Parses a list's query; throws a 400 QueryError naming the first parameter that is unknown, repeated (filters
 * may repeat: the last value counts, as in django-filter) or malformed.
 */
export function parseListQuery(rawQuery: string): ListQuery {
  let format: string | null = null;
  let pageNumber: string | undefined;
  let pageSize: number | undefined;
  let sort: SortKey[] = [];
  let include: string[] | undefined;
  const filters = new Map<string, FilterSpec>();
  const seen = new Set<string>();
  const linkParams: Array<[string, string]> = [];
  for (const [key, value] of decodeQuery(rawQuery)) {
    if (key !== PAGE_NUMBER) linkParams.push([key, value]);
    if (key === FORMAT) {
      format = value;
      continue;
    }
    const filter = FILTER.exec(key);
    if (filter === null && seen.has(key)) throw invalidParameter(key, `repeated query parameter not allowed: ${key}`);
    seen.add(key);
    if (filter !== null) {
      const spec = parseFilter(key, filter[1]!, value);
      filters.delete(key);
      filters.set(key, spec);
    } else if (key === PAGE_NUMBER) {
      pageNumber = value;
    } else if (key === PAGE_SIZE) {
      pageSize = parsePageSize(value);
    } else if (key === SORT) {
      sort = parseSort(value);
    } else if (key === INCLUDE) {
      include = parseInclude(value);
    } else {
      throw invalidParameter(key, `invalid query parameter: ${key}`);
    }
  }
  return { pageNumber, pageSize, sort, filters: [...filters.values()], include, linkParams, format };
}

/**
 * The query of an address that is not a list (root, record, relationship, related): only `format` is taken.
 * Returns the last `format` value, or null.
 */
export function parsePlainQuery(rawQuery: string): string | null {
  let format: string | null = null;
  for (const [key, value] of decodeQuery(rawQuery)) {
    if (key !== FORMAT) throw invalidParameter(key, `invalid query parameter: ${key}`);
    format = value;
  }
  return format;
}

/**
 * The query of a related address, which a source may paginate: `page[number]` (once) and `format` are taken.
 * Returns the raw `page[number]` text, or undefined.
 */
export function parseRelatedQuery(rawQuery: string): string | undefined {
  let pageNumber: string | undefined;
  for (const [key, value] of decodeQuery(rawQuery)) {
    if (key === FORMAT) continue;
    if (key !== PAGE_NUMBER) throw invalidParameter(key, `invalid query parameter: ${key}`);
    if (pageNumber !== undefined) throw invalidParameter(key, `repeated query parameter not allowed: ${key}`);
    pageNumber = value;
  }
  return pageNumber;
}

/** True when a list query asks for nothing but a page (and maybe `format`): a stored page answers it. */
export function isPlainPageQuery(query: ListQuery): boolean {
  return (
    query.pageSize === undefined &&
    query.sort.length === 0 &&
    query.filters.length === 0 &&
    query.include === undefined &&
    query.linkParams.every(([key]) => key === FORMAT)
  );
}
