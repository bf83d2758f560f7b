/**
 * The list document of a query's answer (spec 4.1), and its page links in the real service's spelling: Django REST
 * framework JSON:API copies the request's query into every page link, replaces `page[number]`, sorts the
 * parameters by name and encodes them as Python's urlencode does (`[` `]` as %5B %5D, `,` as %2C, space as `+`).
 */
import { PAGE_NUMBER } from './query.js';
import { byCodeUnits } from '../util/code-unit-order.js';

/** Python's quote_plus: only letters, digits and `_.-~` stay as they are. */
function encodeQueryPart(text: string): string {
  return encodeURIComponent(text)
    .replace(/%20/g, '+')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The query string (without `?`) of page `page`: `params` (every parameter of the request but `page[number]`, in
 * request order) plus `page[number]=<page>`, sorted by name; values of one name keep their order.
 */
export function pageLinkQuery(params: ReadonlyArray<readonly [string, string]>, page: number): string {
  const all: Array<readonly [string, string]> = [
    ...params.filter(([key]) => key !== PAGE_NUMBER),
    [PAGE_NUMBER, String(page)],
  ];
  all.sort(([a], [b]) => byCodeUnits(a, b));
  return all.map(([key, value]) => `${encodeQueryPart(key)}=${encodeQueryPart(value)}`).join('&');
}

export interface ListDocumentInput {
  /** The link of page n. */
  readonly pageLink: (page: number) => string;
  readonly data: readonly unknown[];
  /** Resource objects of `included`, or null when include was not asked. */
  readonly included: readonly unknown[] | null;
  readonly page: number;
  readonly pages: number;
  readonly count: number;
}

/** spec 4.1: first, last, next (null on the last page), prev (null on the first), data, meta.pagination. */
export function listDocument(input: ListDocumentInput): Record<string, unknown> {
  const { page, pages } = input;
  const document: Record<string, unknown> = {
    links: {
      first: input.pageLink(1),
      last: input.pageLink(pages),
      next: page < pages ? input.pageLink(page + 1) : null,
      prev: page > 1 ? input.pageLink(page - 1) : null,
    },
    data: input.data,
  };
  if (input.included !== null) document.included = input.included;
  document.meta = { pagination: { page, pages, count: input.count } };
  return document;
}
