/**
 * Canonical URLs: one spelling per document, so each document is fetched once and stored once.
 *
 * - The path is spelled one way per decoded path: every percent-encoding is decoded and re-encoded, leaving raw
 *   exactly the characters RFC 3986 allows raw in a path segment. `%41` is `A` and `%7e` is `~` (RFC 3986 6.2.2),
 *   `%21` is `!`, `[` is `%5B`. Static hosts decode a request path before they look up its file, and so does the
 *   real service (Django) before it routes, so two spellings of one decoded path are one document to both; a
 *   snapshot could not store them apart anyway. Segments that do not decode (`%zz`, broken UTF-8), and encoded
 *   slashes and backslashes, stay as they are (the layout refuses them).
 * - The query is decoded as a form (`+` is a space, `page%5bnumber%5d` is `page[number]`) and re-encoded.
 * - `format` is dropped: on the real service (Django REST framework) `?format=api` answers the HTML browsable page,
 *   and the crawl asks for JSON:API whatever the link says.
 * - `page[number]` names a page only when it is given once, as a whole number of at least 1 written the canonical
 *   way (see `PAGE_NUMBER_TEXT`); `page[number]=1` is then the bare URL. Any other value is kept as it is, so that
 *   URL stays a document of its own, which is never a page (the layout refuses to store it).
 * - The remaining query is sorted; fragments are dropped.
 */

import { quoteUntrusted } from '../util/safe-text.js';
import { byCodeUnits } from '../util/code-unit-order.js';

const PAGE_NUMBER = 'page[number]';
/**
 * A page number as the canonical spelling of a whole number ≥ 1 that a JavaScript number holds exactly. Not `02`:
 * Django's int() reads it as 2, but other servers reject it or read it as octal, and the snapshot cannot know which;
 * folding it onto page 2 would give one file to two URLs the source may answer differently. Nor `+2`, ` 2`, `2.0`,
 * `2e0`, `0` or `-1`, for the same reason (a server that clamps answers page 1 at `0`). The page links of real
 * sources (Django REST framework's among them) spell page numbers this way.
 */
const PAGE_NUMBER_TEXT = /^[1-9][0-9]{0,14}$/;
/** The characters a path segment may hold raw (RFC 3986 pchar: unreserved, sub-delims, `:` and `@`). */
const RAW_SEGMENT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]*$/;

/** The parts of a URL that scope, location and layout read, as `new URL` gives them. */
export interface UrlParts {
  readonly origin: string;
  readonly pathname: string;
  /**
   * `?` and the query, or empty. For a canonical URL its percent-encoding may differ from `new URL(url).search`
   * (`'` stays as it is), never the parameters it decodes to, which is all that anyone reads from it.
   */
  readonly search: string;
}

function partsOf(url: URL): UrlParts {
  return { origin: url.origin, pathname: url.pathname, search: url.search };
}

/** Origin, path and query of `url` (throws as `new URL` does). */
export function urlParts(url: string): UrlParts {
  return partsOf(new URL(url));
}

/** Thrown for text that is not an absolute http(s) URL. Its message never shows a password or a control character. */
export class InvalidUrlError extends Error {
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super(`"${quoteUntrusted(input)}" is not a usable URL: ${reason}.`);
    this.name = 'InvalidUrlError';
  }
}

/** Percent-encodes a query key or value, leaving the JSON:API brackets readable. */
function encodeQueryPart(text: string): string {
  return encodeURIComponent(text).replace(/%5B/gi, '[').replace(/%5D/gi, ']');
}

/** Parses `input` (resolved against `base` when relative) and returns its canonical spelling. */
export function canonicalUrl(input: string, base?: string): string {
  return canonicalize(input, base).url;
}

/** Percent-encodes what a path segment may not hold raw (uppercase hex, UTF-8). */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%(2[146-9ABC]|3[ABD]|40)/g, (escape) => decodeURIComponent(escape));
}

/** The one spelling of a path segment, as the module comment describes. */
function canonicalSegment(raw: string): string {
  if (RAW_SEGMENT.test(raw)) return raw;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return raw;
  }
  // Decoded, these would change the path's shape when parsed again (dot segments, slashes; WHATWG reads `\` as `/`).
  if (decoded === '.' || decoded === '..' || /[/\\]/.test(decoded)) return raw;
  return encodeSegment(decoded);
}

/** The path spelled one way per decoded path; most paths are returned as they are. */
function canonicalPath(pathname: string): string {
  if (RAW_SEGMENT.test(pathname.replaceAll('/', ''))) return pathname;
  return pathname.split('/').map(canonicalSegment).join('/');
}

/**
 * The canonical form of the query's parameters: `format` dropped, a canonical `page[number]=1` dropped, the rest
 * sorted (see the module comment).
 */
function canonicalParams(searchParams: URLSearchParams): Array<[string, string]> {
  const pageNumbers = searchParams.getAll(PAGE_NUMBER);
  const firstPage = pageNumbers.length === 1 && pageNumbers[0] === '1';
  const params: Array<[string, string]> = [];
  for (const [key, value] of searchParams) {
    if (key === 'format' || (firstPage && key === PAGE_NUMBER)) continue;
    params.push([key, value]);
  }
  params.sort(([ka, va], [kb, vb]) => byCodeUnits(ka, kb) || byCodeUnits(va, vb));
  return params;
}

/**
 * The canonical spelling of `input` (resolved against `base` when relative), with its parts: the canonical spelling
 * parses back to the same origin and path (it is built from them), and to this query.
 */
export function canonicalize(input: string, base?: string): { url: string; parts: UrlParts } {
  let url: URL;
  try {
    url = base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    throw new InvalidUrlError(input, 'it does not parse as a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidUrlError(input, `the scheme ${url.protocol} is not http or https`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new InvalidUrlError(input, 'credentials inside a URL are not accepted; pass them with --header');
  }
  const query = canonicalParams(url.searchParams)
    .map(([k, v]) => `${encodeQueryPart(k)}=${encodeQueryPart(v)}`)
    .join('&');
  const search = query === '' ? '' : `?${query}`;
  const pathname = canonicalPath(url.pathname);
  return { url: `${url.origin}${pathname}${search}`, parts: { origin: url.origin, pathname, search } };
}

/** A path below the root as a canonical URL spells it raw: pchar (see RAW_SEGMENT) and slashes. */
const PLAIN_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
/** A `.` or `..` segment, which `new URL` resolves. */
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;
/** The queries of the links a CV API writes (spec 4.1): `format=api`, with or without a page number. */
const PAGE = '(?:page(?:%5B|\\[)number(?:%5D|\\])=([1-9][0-9]{0,14}))';
const PLAIN_QUERY = new RegExp(`^(?:format=api(?:&${PAGE})?|${PAGE}(?:&format=api)?)$`);

/**
 * `canonicalize` for the links a source writes nearly always: the canonical `root` followed by a path in the
 * characters a canonical path keeps raw and, at most, `format=api` and a page number. Those need no parsing: the
 * answer is the same string work `canonicalize` ends with. Undefined for anything else, which `canonicalize` parses.
 */
export function canonicalizeUnderRoot(input: string, root: UrlParts): { url: string; parts: UrlParts } | undefined {
  const prefix = root.origin + root.pathname;
  if (!input.startsWith(prefix) || !root.pathname.endsWith('/')) return undefined;
  const question = input.indexOf('?', prefix.length);
  const below = question === -1 ? input.slice(prefix.length) : input.slice(prefix.length, question);
  // An empty segment (which the layout refuses) or a dot segment: parsed the long way.
  if (!PLAIN_PATH.test(below) || below.startsWith('/') || below.includes('//') || DOT_SEGMENT.test(below)) {
    return undefined;
  }
  let search = '';
  if (question !== -1) {
    const query = PLAIN_QUERY.exec(input.slice(question + 1));
    if (query === null) return undefined;
    const page = query[1] ?? query[2];
    if (page !== undefined && page !== '1') search = `?${PAGE_NUMBER}=${page}`;
  }
  const pathname = root.pathname + below;
  return { url: `${root.origin}${pathname}${search}`, parts: { origin: root.origin, pathname, search } };
}

/** The canonical root: a root URL always names a directory, so it ends in `/`. */
export function canonicalRoot(input: string): string {
  const canonical = canonicalUrl(input);
  const url = urlParts(canonical);
  if (url.search !== '') {
    throw new InvalidUrlError(input, 'a root URL has no query (other than format=api)');
  }
  return url.pathname.endsWith('/') ? canonical : `${canonical}/`;
}

/**
 * Scope (docs/architecture.md#crawling-rules): the root's origin and paths under the root's path. The root itself
 * without its trailing slash is in scope too (it redirects to the slash form on the real service).
 */
export function isInScope(canonical: string, root: string): boolean {
  return partsInScope(urlParts(canonical), urlParts(root));
}

/** isInScope for URLs already parsed. */
export function partsInScope(url: UrlParts, rootUrl: UrlParts): boolean {
  if (url.origin !== rootUrl.origin) return false;
  return url.pathname.startsWith(rootUrl.pathname) || `${url.pathname}/` === rootUrl.pathname;
}

/**
 * The page a canonical URL's query names: 1 without a query, n for `page[number]=n` alone (a canonical page
 * number, see `PAGE_NUMBER_TEXT`), null for any other query (other parameters, a repeated `page[number]`, or a
 * value that is not a page number).
 */
export function pageNumberOf(canonical: string): number | null {
  return pageNumberOfSearch(urlParts(canonical).search);
}

/** pageNumberOf for the `search` part of a URL already parsed. */
export function pageNumberOfSearch(search: string): number | null {
  if (search === '') return 1;
  const params = [...new URLSearchParams(search)];
  if (params.length !== 1 || params[0]![0] !== PAGE_NUMBER) return null;
  const value = params[0]![1];
  return PAGE_NUMBER_TEXT.test(value) ? Number(value) : null;
}

/** The `page[number]` values of a canonical URL's query that name no page, for a finding; empty when none. */
export function invalidPageNumbers(canonical: string): string[] {
  const values = new URLSearchParams(urlParts(canonical).search).getAll(PAGE_NUMBER);
  if (values.length > 1) return values;
  return values.filter((value) => !PAGE_NUMBER_TEXT.test(value));
}
