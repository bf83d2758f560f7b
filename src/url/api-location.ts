/**
 * Where a canonical URL sits in the API (spec §4): the root index, a collection list page, a record, a
 * relationship self address or a related address (a page of it when the source paginates it: JSON:API allows
 * that for related to-many lists). Pure: it reads only the URL and the root.
 */
import { pageNumberOfSearch, urlParts, type UrlParts } from './canonical-url.js';

export type ApiLocation =
  | { kind: 'root' }
  | { kind: 'list'; collection: string; page: number }
  | { kind: 'record'; collection: string; id: string }
  | { kind: 'relationship'; collection: string; id: string; relationship: string }
  | { kind: 'related'; collection: string; id: string; relationship: string; page: number }
  | { kind: 'other' };

/** Path segments of `canonical` below `root`, percent-decoded; null when outside the root's path. */
function segmentsBelowRoot(url: UrlParts, rootUrl: UrlParts): string[] | null {
  if (url.origin !== rootUrl.origin) return null;
  let rest: string;
  if (url.pathname.startsWith(rootUrl.pathname)) rest = url.pathname.slice(rootUrl.pathname.length);
  else if (`${url.pathname}/` === rootUrl.pathname) rest = '';
  else return null;
  const segments = rest.split('/');
  if (segments.at(-1) === '') segments.pop();
  return segments.map((s) => {
    if (!s.includes('%')) return s;
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
}

export function locate(canonical: string, root: string): ApiLocation {
  return locateParts(urlParts(canonical), urlParts(root));
}

/** locate for a canonical URL and a root already parsed. */
export function locateParts(url: UrlParts, rootUrl: UrlParts): ApiLocation {
  const segments = segmentsBelowRoot(url, rootUrl);
  if (segments === null) return { kind: 'other' };
  const { pathname, search } = url;
  const hasQuery = search !== '';
  const [collection, id, third, fourth] = segments;
  if (collection === undefined) return hasQuery ? { kind: 'other' } : { kind: 'root' };
  if (id === undefined) {
    // The slash-less collection URL is another document (a redirect on the real service), not page 1.
    if (!pathname.endsWith('/')) return { kind: 'other' };
    const page = pageNumberOfSearch(search);
    return page === null ? { kind: 'other' } : { kind: 'list', collection, page };
  }
  if (segments.length === 3) {
    const page = pageNumberOfSearch(search);
    return page === null ? { kind: 'other' } : { kind: 'related', collection, id, relationship: third!, page };
  }
  if (hasQuery) return { kind: 'other' };
  if (third === undefined) return { kind: 'record', collection, id };
  if (third === 'relationships' && fourth !== undefined && segments.length === 4) {
    return { kind: 'relationship', collection, id, relationship: fourth };
  }
  return { kind: 'other' };
}
