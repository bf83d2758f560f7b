/**
 * What a request path names in a snapshot, through the layout (the one URL ↔ file mapping): the list of a collection
 * (whose queries `serve` answers), a stored file (a record's URL with or without its trailing slash, as the
 * `_redirects` rules make static hosts answer it), or nothing. A path that tries to step outside the snapshot —
 * `..` or `.` segments raw or percent-encoded, encoded slashes, backslashes, NUL or other control characters — is
 * refused before any file is looked up.
 */
import { INDEX_FILE, type Layout } from '../format/layout.js';

export type RequestTarget =
  { kind: 'list'; collection: string } | { kind: 'file'; file: string } | { kind: 'not-found' };

/** Why a raw request path is refused outright (a 400), or null when it may name a file. */
export function unsafePathReason(rawPath: string): string | null {
  if (!rawPath.startsWith('/')) return 'the request target is not a path';
  if (rawPath.includes('\\')) return 'the path contains a backslash';
  for (const raw of rawPath.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return 'the path has a malformed percent-encoding';
    }
    if (segment === '.' || segment === '..') return 'the path has a dot segment';
    if (/[\\/]/.test(segment)) return 'the path has an encoded slash or backslash';
    // eslint-disable-next-line no-control-regex -- control characters are what this refuses
    if (/[\u0000-\u001f\u007f]/.test(segment)) return 'the path contains a control character';
  }
  return null;
}

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export function resolveTarget(
  rawPath: string,
  layout: Layout,
  collections: ReadonlySet<string>,
  hasFile: (file: string) => boolean,
): RequestTarget {
  const rootPath = layout.rootPath();
  const path = `${rawPath}/` === rootPath ? rootPath : rawPath;
  if (path.startsWith(rootPath)) {
    const rest = path.slice(rootPath.length).split('/');
    if (rest.at(-1) === '' && rest.length > 1) rest.pop();
    const collection = rest.length === 1 && rest[0] !== '' ? decodeSegment(rest[0]!) : null;
    if (collection !== null && collections.has(collection)) return { kind: 'list', collection };
  }
  const file = layout.fileOfServedPath(path);
  if (file !== null && hasFile(file)) return { kind: 'file', file };
  if (!path.endsWith('/')) {
    // spec 2.1 record and related addresses end in `/`; clients also ask them without (docs/source-api.md#addresses).
    const slashed = layout.fileOfServedPath(`${path}/`);
    if (slashed !== null && hasFile(slashed)) return { kind: 'file', file: slashed };
  }
  // The catalogue's front page, which its pages link to as `index.html`: a file of the tree that no API URL names.
  if (path === `/${INDEX_FILE}` && layout.hasCatalogueRoom() && hasFile(INDEX_FILE)) {
    return { kind: 'file', file: INDEX_FILE };
  }
  return { kind: 'not-found' };
}
