/**
 * Which endpoint of spec 4 a request path names, with the URL rules of the real service (docs/source-api.md#addresses):
 * Django's APPEND_SLASH answers 301 to the slash form for the root, collection, record and related paths; relationship
 * paths have no trailing slash and 404 with one. Whether the record or relationship exists is the handler's job.
 */

export type Route =
  | { kind: 'root' }
  | { kind: 'list'; collection: string }
  | { kind: 'record'; collection: string; id: string }
  | { kind: 'relationship'; collection: string; id: string; relationship: string }
  | { kind: 'related'; collection: string; id: string; relationship: string }
  /** `path` is the slash form of the request path (the query is added back by the caller). */
  | { kind: 'redirect'; path: string }
  | { kind: 'not-found' };

/** URL patterns of the real service: ids are `[^/.]+`, relationship names `[-\w]+`. */
const ID = /^[^/.]+$/;
const NAME = /^[-\w]+$/;

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Matches `path` (no query) below `rootPath` (which ends in `/`). */
export function matchRoute(path: string, rootPath: string, collections: ReadonlySet<string>): Route {
  if (!path.startsWith(rootPath)) {
    return `${path}/` === rootPath ? { kind: 'redirect', path: rootPath } : { kind: 'not-found' };
  }
  const rest = path.slice(rootPath.length);
  if (rest === '') return { kind: 'root' };
  const slash = rest.endsWith('/');
  const segments = (slash ? rest.slice(0, -1) : rest).split('/').map(decode);
  const [collection, id, third, fourth] = segments;
  if (collection === undefined || collection === null || !collections.has(collection)) return { kind: 'not-found' };
  if (segments.some((segment) => segment === null || segment === '')) return { kind: 'not-found' };
  if (id !== undefined && (id === null || !ID.test(id))) return { kind: 'not-found' };
  const redirect: Route = { kind: 'redirect', path: `${path}/` };
  switch (segments.length) {
    case 1:
      return slash ? { kind: 'list', collection } : redirect;
    case 2:
      return slash && id ? { kind: 'record', collection, id } : redirect;
    case 3:
      if (!id || !third || !NAME.test(third)) return { kind: 'not-found' };
      return slash ? { kind: 'related', collection, id, relationship: third } : redirect;
    case 4:
      // spec 2.4: relationship addresses have no trailing slash; with one they match no relationship.
      if (slash || !id || third !== 'relationships' || !fourth || !NAME.test(fourth)) return { kind: 'not-found' };
      return { kind: 'relationship', collection, id, relationship: fourth };
    default:
      return { kind: 'not-found' };
  }
}

/** spec 4: collections also allow POST; records, relationships and related addresses are read here. */
export function allowOf(route: Route): string {
  return route.kind === 'list' ? 'GET, POST, HEAD, OPTIONS' : 'GET, HEAD, OPTIONS';
}
