/**
 * The checks on the root index, the first document of every crawl: a wrong root URL ends the crawl with one clear
 * message before anything else happens.
 */
import { NotRootIndexError, RootScopeError } from '../util/errors.js';
import { urlParts } from '../url/canonical-url.js';
import type { UrlSpace } from '../url/url-space.js';
import { plural } from '../util/plural.js';

/** Throws NotRootIndexError unless `json` is `{ data: { <collection>: <url> } }` (spec §4). */
export function assertRootIndex(url: string, json: unknown): void {
  const data = (json as { data?: unknown } | null)?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new NotRootIndexError(url, 'its JSON has no "data" object mapping collection names to URLs');
  }
  const entries = Object.entries(data);
  if (entries.length === 0) throw new NotRootIndexError(url, 'its "data" object lists no collection');
  const bad = entries.find(([, value]) => typeof value !== 'string');
  if (bad) throw new NotRootIndexError(url, `its "data" member "${bad[0]}" is not a URL string`);
}

/** The directory a URL is in: where a root URL would be for a collection URL. */
function parentDirectory(url: string): string {
  const { origin, pathname } = urlParts(url);
  const trimmed = pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  return `${origin}${trimmed.slice(0, trimmed.lastIndexOf('/') + 1)}`;
}

/**
 * Throws RootScopeError when not one collection URL of the root index is in scope: the crawl would find nothing
 * and publish an empty snapshot. (Some outside and some inside are findings, as any link outside the root is.)
 */
export function assertRootLeadsInScope(url: string, json: unknown, urls: UrlSpace): void {
  const data = (json as { data: Record<string, string> }).data;
  const outside: string[] = [];
  for (const link of Object.values(data)) {
    let target: string;
    try {
      target = urls.canonical(link, url);
    } catch {
      continue;
    }
    if (urls.inScope(target)) return;
    outside.push(target);
  }
  const where = [...new Set(outside.map(parentDirectory))];
  const named = where.slice(0, 3).join(', ') + (where.length > 3 ? ` and ${where.length - 3} more` : '');
  const listed = `the root index lists ${plural(outside.length, 'collection URL')}`;
  throw new RootScopeError(
    url,
    `${listed} and none is below the root URL ` +
      (outside.length === 0
        ? '(none is a usable http(s) URL), so there is nothing to crawl.'
        : `(they are under ${named}), so there is nothing to crawl. Only URLs on the root's origin and below its ` +
          `path are fetched: give the root URL the collections belong to, such as ${where[0]}.`),
  );
}
