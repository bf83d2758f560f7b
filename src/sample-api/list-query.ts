/**
 * Query strings of the sample API and the list engine. Parsing turns a raw query into decoded parameters and
 * rejects any the endpoint does not know (the real service's QueryParameterValidationFilter answers 400). The list
 * engine takes a collection's records and the parsed query and returns one page: a later query engine (page[size],
 * sort, filter, include) replaces `selectPage` without touching the HTTP or document code.
 */
import { ApiError, invalidParameter } from './api-error.js';

export const PAGE_NUMBER = 'page[number]';
export const FORMAT = 'format';

export interface ParsedQuery {
  /** Last `format` value, or null. */
  readonly format: string | null;
  /** Every other parameter, decoded (`page%5Bnumber%5D` is `page[number]`), last value wins. */
  readonly params: ReadonlyMap<string, string>;
  /**
   * The first parameter the endpoint does not accept, as the 400 to answer. Kept rather than thrown because the
   * real service negotiates the media type (406) before it validates the query.
   */
  readonly problem: ApiError | null;
}

/** Decodes `rawQuery` (without `?`); parameters outside `allowed` (besides `format`) or repeated are a problem. */
export function parseQuery(rawQuery: string, allowed: ReadonlySet<string>): ParsedQuery {
  let format: string | null = null;
  let problem: ApiError | null = null;
  const params = new Map<string, string>();
  if (rawQuery === '') return { format, params, problem };
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    if (key === FORMAT) {
      format = value;
    } else if (!allowed.has(key)) {
      problem ??= invalidParameter(key, `invalid query parameter: ${key}`);
    } else if (params.has(key)) {
      problem ??= invalidParameter(key, `repeated query parameter not allowed: ${key}`);
    } else {
      params.set(key, value);
    }
  }
  return { format, params, problem };
}

export interface ListPage<T> {
  readonly items: readonly T[];
  /** spec 4.1 meta.pagination */
  readonly page: number;
  readonly pages: number;
  readonly count: number;
  /** Parameters other than format and page[number] that the page links must carry (none yet). */
  readonly linkParams: ReadonlyArray<readonly [string, string]>;
}

const invalidPage = (): ApiError => new ApiError(404, 'Invalid page.', 'not_found', { parameter: PAGE_NUMBER });

/** Django's Paginator: an empty list still has page 1; `last` names the last page; anything else invalid is 404. */
function pageNumber(raw: string | undefined, pages: number): number {
  if (raw === undefined || raw === '') return 1;
  if (raw === 'last') return pages;
  if (!/^\s*\+?\d+\s*$/.test(raw)) throw invalidPage();
  return Number.parseInt(raw.trim(), 10);
}

/** One page of `records` at `pageSize` per page (spec 4.1). */
export function selectPage<T>(records: readonly T[], query: ParsedQuery, pageSize: number): ListPage<T> {
  const count = records.length;
  const pages = Math.max(1, Math.ceil(count / pageSize));
  const page = pageNumber(query.params.get(PAGE_NUMBER), pages);
  if (page < 1 || page > pages) throw invalidPage();
  const start = (page - 1) * pageSize;
  return { items: records.slice(start, start + pageSize), page, pages, count, linkParams: [] };
}
