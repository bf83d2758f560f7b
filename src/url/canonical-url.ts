/**
 * Canonical URLs (DESIGN.md §4): one spelling per document, so each document is fetched once and stored once.
 *
 * - `format` is dropped: on the real service (Django REST framework) `?format=api` answers the HTML browsable page.
 * - `page%5Bnumber%5D` and `page[number]` are the same parameter; `page[number]=1` is the bare URL.
 * - The remaining query is sorted; fragments are dropped.
 */

const PAGE_NUMBER = 'page[number]';

/** Thrown for text that is not an absolute http(s) URL. */
export class InvalidUrlError extends Error {
  constructor(readonly input: string, reason: string) {
    super(`"${input}" is not a usable URL: ${reason}.`);
    this.name = 'InvalidUrlError';
  }
}

/** Percent-encodes a query key or value, leaving the JSON:API brackets readable. */
function encodeQueryPart(text: string): string {
  return encodeURIComponent(text).replace(/%5B/gi, '[').replace(/%5D/gi, ']');
}

/** Parses `input` (resolved against `base` when relative) and returns its canonical spelling. */
export function canonicalUrl(input: string, base?: string): string {
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
  const params: Array<[string, string]> = [];
  for (const [key, rawValue] of url.searchParams) {
    if (key === 'format') continue;
    let value = rawValue;
    if (key === PAGE_NUMBER && /^\d+$/.test(value)) {
      value = String(Number.parseInt(value, 10));
      if (value === '1') continue;
    }
    params.push([key, value]);
  }
  params.sort(([ka, va], [kb, vb]) => (ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0));
  const query = params.map(([k, v]) => `${encodeQueryPart(k)}=${encodeQueryPart(v)}`).join('&');
  return `${url.origin}${url.pathname}${query === '' ? '' : `?${query}`}`;
}

/** The canonical root: a root URL always names a directory, so it ends in `/`. */
export function canonicalRoot(input: string): string {
  const canonical = canonicalUrl(input);
  const url = new URL(canonical);
  if (url.search !== '') {
    throw new InvalidUrlError(input, 'a root URL has no query (other than format=api)');
  }
  return url.pathname.endsWith('/') ? canonical : `${canonical}/`;
}

/**
 * Scope (DESIGN.md §4): the root's origin and paths under the root's path. The root itself without its trailing
 * slash is in scope too (it redirects to the slash form on the real service).
 */
export function isInScope(canonical: string, root: string): boolean {
  const url = new URL(canonical);
  const rootUrl = new URL(root);
  if (url.origin !== rootUrl.origin) return false;
  return url.pathname.startsWith(rootUrl.pathname) || `${url.pathname}/` === rootUrl.pathname;
}

/** Reads `page[number]` from a canonical URL (1 when absent). */
export function pageNumberOf(canonical: string): number {
  const value = new URL(canonical).searchParams.get(PAGE_NUMBER);
  return value === null ? 1 : Number.parseInt(value, 10);
}
