/**
 * Canonical URLs (DESIGN.md §4): one spelling per document, so each document is fetched once and stored once.
 *
 * - `format` is dropped: on the real service (Django REST framework) `?format=api` answers the HTML browsable page.
 * - `page%5Bnumber%5D` and `page[number]` are the same parameter; `page[number]=1` is the bare URL.
 * - The remaining query is sorted; fragments are dropped.
 */

import { quoteUntrusted } from '../safe-text.js';
import { Memo } from './memo.js';

const PAGE_NUMBER = 'page[number]';
/** An absolute http(s) URL: `new URL` ignores any base for it. */
const ABSOLUTE_HTTP = /^https?:\/\//i;
/** Entries per memo generation: enough for the links of the documents in flight, small next to the URL set. */
const MEMO_SIZE = 16_384;

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

const partsMemo = new Memo<UrlParts>(MEMO_SIZE);
/** Input (absolute) or base and input (relative) → canonical spelling. */
const canonicalMemo = new Memo<string>(MEMO_SIZE);

function partsOf(url: URL): UrlParts {
  return { origin: url.origin, pathname: url.pathname, search: url.search };
}

/** Origin, path and query of `url` (throws as `new URL` does); remembered for URLs asked about recently. */
export function urlParts(url: string): UrlParts {
  let parts = partsMemo.get(url);
  if (parts === undefined) {
    parts = partsOf(new URL(url));
    partsMemo.set(url, parts);
  }
  return parts;
}

/** The last base found parsable: every link of a document is resolved against the same one. */
let lastParsableBase: string | undefined;

let lastRoot: { root: string; parts: UrlParts } | undefined;

/** urlParts of a root URL: a crawl asks about one root all the time. */
export function rootParts(root: string): UrlParts {
  if (lastRoot?.root !== root) lastRoot = { root, parts: urlParts(root) };
  return lastRoot.parts;
}

/** Whether `base` parses as a URL, as `new URL(input, base)` requires even when `input` is absolute. */
function parsableBase(base: string): boolean {
  if (base === lastParsableBase) return true;
  if (partsMemo.get(base) === undefined && !URL.canParse(base)) return false;
  lastParsableBase = base;
  return true;
}

/** Whether `link` is an absolute http(s) URL, whose meaning does not depend on the document it is found in. */
export function isAbsoluteHttpUrl(link: string): boolean {
  return ABSOLUTE_HTTP.test(link);
}

/** Thrown for text that is not an absolute http(s) URL. Its message never shows a password or a control character. */
export class InvalidUrlError extends Error {
  constructor(readonly input: string, reason: string) {
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
  // An absolute link means the same whatever document it is found in, so it is remembered by itself.
  const key = base === undefined || (ABSOLUTE_HTTP.test(input) && parsableBase(base)) ? input : `${base}\n${input}`;
  const known = canonicalMemo.get(key);
  if (known !== undefined) return known;
  const canonical = computeCanonicalUrl(input, base);
  canonicalMemo.set(key, canonical);
  // Whoever asks next about the canonical URL itself (scope, location, layout, canonicalUrl again) parses nothing.
  canonicalMemo.set(canonical, canonical);
  return canonical;
}

function computeCanonicalUrl(input: string, base: string | undefined): string {
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
  const search = query === '' ? '' : `?${query}`;
  const canonical = `${url.origin}${url.pathname}${search}`;
  // The canonical spelling parses back to the same origin and path (it is built from them), and to this query.
  partsMemo.set(canonical, { origin: url.origin, pathname: url.pathname, search });
  return canonical;
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
 * Scope (DESIGN.md §4): the root's origin and paths under the root's path. The root itself without its trailing
 * slash is in scope too (it redirects to the slash form on the real service).
 */
export function isInScope(canonical: string, root: string): boolean {
  const url = urlParts(canonical);
  const rootUrl = rootParts(root);
  if (url.origin !== rootUrl.origin) return false;
  return url.pathname.startsWith(rootUrl.pathname) || `${url.pathname}/` === rootUrl.pathname;
}

/** Reads `page[number]` from a canonical URL (1 when absent). */
export function pageNumberOf(canonical: string): number {
  const value = new URLSearchParams(urlParts(canonical).search).get(PAGE_NUMBER);
  return value === null ? 1 : Number.parseInt(value, 10);
}
