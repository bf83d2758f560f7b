/**
 * The one mapping between canonical URLs and files of a snapshot. The writer, verify, serve, diff and the tests all
 * ask this module; nobody else computes paths.
 *
 * - A URL ending in `/` is stored as `<path>/index.html` (every static host resolves a directory to index.html;
 *   `_headers` sets the real media type). A URL without a trailing slash is an extensionless file `<path>`.
 * - Page n of a collection list is stored at `<collection>/page/<n>/`; the bare collection directory holds the
 *   complete collection as one page (built in finalize). Page n ≥ 2 of a related list (a source may paginate a
 *   to-many related address) is stored at `<related>/page/<n>/`; the bare related address holds page 1.
 * - Paths are the URL's path below the origin, so a tree served at a host's root answers the API's own URLs.
 *
 * Two canonical URLs never get one file: a file's path is its URL's decoded path segments, and a canonical URL
 * spells each decoded path one way (canonical-url.ts); a query is stored only as a page, under the reserved `page`
 * segment that no other URL may use, with one spelling per page number. What a file system folds on its own
 * (letter case on macOS and Windows, Unicode normalisation on macOS) the writer catches when it creates a file
 * that already exists (`layout.collision`).
 *
 * File paths returned here are relative POSIX paths inside the snapshot directory.
 */
import { invalidPageNumbers } from '../url/canonical-url.js';
import { Memo } from '../url/memo.js';
import { UrlSpace, type ParsedUrl } from '../url/url-space.js';
import { META_DIR } from '../store/sums.js';

export const INDEX_FILE = 'index.html';
export const PAGE_SEGMENT = 'page';
/** Files at the top of a snapshot that are not documents. */
/** The catalogue's folder (docs/catalogue.md); its front page is the top-level index.html. */
export const CATALOGUE_DIR = '_catalogue';
/** `html`: build the catalogue with every crawl; `none`: leave it out. */
export const CATALOGUE_MODES = ['html', 'none'] as const;
export type CatalogueMode = (typeof CATALOGUE_MODES)[number];
export const TOP_LEVEL_FILES = ['_headers', '_redirects', 'serve.json', '404.html', META_DIR, CATALOGUE_DIR] as const;

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
const MAX_SEGMENT_BYTES = 200;
/**
 * The longest path of a file inside a snapshot. A whole path may have 4,095 bytes on Linux (1,023 on macOS), and the
 * snapshot's files sit below --out, its staging directory and its generations: a limit of the snapshot's own, the
 * same wherever it is written, leaves them room, and keeps the tree one that pack, extract and verify can walk.
 */
const MAX_PATH_BYTES = 1024;

export type Placement =
  | {
      ok: true;
      /** File inside the snapshot, e.g. `sms/cv/api/v1/units/page/2/index.html`. */
      file: string;
      /** URL path at which a static host answers this document, e.g. `/sms/cv/api/v1/units/page/2/`. */
      servedPath: string;
    }
  | { ok: false; reason: string };

/** Why a decoded path segment cannot become a file name, or null when it can. */
function unsafeSegmentReason(segment: string): string | null {
  if (segment === '') return 'it has an empty path segment';
  if (segment === '.' || segment === '..') return `it has a "${segment}" path segment`;
  if (/[\\/]/.test(segment)) return 'a path segment contains a slash or backslash';
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(segment)) return 'a path segment contains a control character';
  if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) return `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`;
  if (WINDOWS_RESERVED.test(segment)) return `the path segment "${segment}" is a reserved file name on Windows`;
  if (/[. ]$/.test(segment)) return 'a path segment ends in a dot or a space, which Windows cannot store';
  if (/[<>:"|?*]/.test(segment)) return 'a path segment contains a character Windows cannot store in a file name';
  if (segment === INDEX_FILE) return `the path segment "${INDEX_FILE}" would collide with a directory's document`;
  return null;
}

function judgeSegment(part: string): { segment: string } | { reason: string } {
  let segment: string;
  try {
    segment = part.includes('%') ? decodeURIComponent(part) : part;
  } catch {
    return { reason: 'a path segment has a malformed percent-encoding' };
  }
  const reason = unsafeSegmentReason(segment);
  return reason === null ? { segment } : { reason };
}

type SegmentVerdict = { segment: string } | { reason: string };

/** `verdicts` remembers the verdicts on recent raw segments: a crawl meets the same names and ids over and over. */
function decodedSegments(pathname: string, verdicts: Memo<SegmentVerdict>): string[] | string {
  const raw = pathname.split('/').slice(1);
  if (raw.at(-1) === '') raw.pop();
  const decoded: string[] = [];
  for (const part of raw) {
    let verdict = verdicts.get(part);
    if (verdict === undefined) {
      verdict = judgeSegment(part);
      verdicts.set(part, verdict);
    }
    if ('reason' in verdict) return verdict.reason;
    decoded.push(verdict.segment);
  }
  return decoded;
}

function encodePath(segments: string[], trailingSlash: boolean): string {
  const body = segments.map((s) => encodeURIComponent(s)).join('/');
  return `/${body}${trailingSlash && segments.length > 0 ? '/' : ''}`;
}

export class Layout {
  readonly root: string;
  /** The URLs of the run this layout serves, parsed once (a crawl shares its own). */
  readonly urls: UrlSpace;
  private readonly rootSegmentCount: number;
  /**
   * Placements of the URLs the run's space remembers (the rewriter asks for every link of every document), held
   * as long as the space holds the parsed URL. Frozen.
   */
  readonly #placements = new WeakMap<ParsedUrl, Placement>();
  readonly #segmentVerdicts = new Memo<SegmentVerdict>(4096);
  /** Collection URLs by collection name: the catalogue and its downloads ask for one for each record. */
  readonly #collectionUrls = new Memo<string>(1024);

  /** `root` is the canonical root URL (ending in `/`). */
  constructor(root: string, urls: UrlSpace = new UrlSpace(root)) {
    this.root = root;
    this.urls = urls;
    this.rootSegmentCount = new URL(root).pathname.split('/').filter((s) => s !== '').length;
  }

  /** Where the document at `url` is stored, or why it cannot be stored. */
  place(url: string): Placement {
    return this.placeParsed(this.urls.resolve(url));
  }

  /** `place` for a URL the run's space has parsed. */
  placeParsed(parsed: ParsedUrl): Placement {
    let placement = this.#placements.get(parsed);
    if (placement === undefined) {
      placement = Object.freeze(this.#place(parsed));
      this.#placements.set(parsed, placement);
    }
    return placement;
  }

  #place(parsed: ParsedUrl): Placement {
    const placement = this.#placeByPath(parsed);
    if (!placement.ok) return placement;
    const bytes = Buffer.byteLength(placement.file);
    if (bytes <= MAX_PATH_BYTES) return placement;
    return {
      ok: false,
      reason: `its file path would be ${bytes} bytes long, over the ${MAX_PATH_BYTES} a snapshot allows`,
    };
  }

  #placeByPath({ url: canonical, parts: parsed, inScope, location }: ParsedUrl): Placement {
    const segments = decodedSegments(parsed.pathname, this.#segmentVerdicts);
    if (typeof segments === 'string') return { ok: false, reason: segments };
    if (!inScope) return { ok: false, reason: 'it is outside the root URL' };
    if (segments.length > 0 && (TOP_LEVEL_FILES as readonly string[]).includes(segments[0]!)) {
      return { ok: false, reason: `its first path segment "${segments[0]}" is reserved for the snapshot's own files` };
    }
    const below = segments.slice(this.rootSegmentCount);
    if (below.includes(PAGE_SEGMENT)) {
      return { ok: false, reason: `the path segment "${PAGE_SEGMENT}" is reserved for list pages in the snapshot` };
    }
    const trailingSlash = parsed.pathname.endsWith('/');
    const paged = location.kind === 'list' || (location.kind === 'related' && location.page > 1);
    if (paged && trailingSlash) {
      const dir = [...segments, PAGE_SEGMENT, String(location.page)];
      return { ok: true, file: `${dir.join('/')}/${INDEX_FILE}`, servedPath: encodePath(dir, true) };
    }
    if (paged) {
      // Its pages would be files below a file: the slash-less related address is stored as a file of its own.
      return { ok: false, reason: 'it is a page of a related list whose address has no trailing slash' };
    }
    if (parsed.search !== '') {
      const invalid = invalidPageNumbers(canonical);
      if (invalid.length === 1) {
        const rule = 'a whole number from 1, no sign or leading zero';
        return { ok: false, reason: `its page[number] "${invalid[0]}" is not a page number (${rule})` };
      }
      if (invalid.length > 1) return { ok: false, reason: 'it gives page[number] more than once' };
      return { ok: false, reason: 'it has a query that the snapshot cannot store as a file' };
    }
    if (trailingSlash) {
      const file = segments.length === 0 ? INDEX_FILE : `${segments.join('/')}/${INDEX_FILE}`;
      return { ok: true, file, servedPath: encodePath(segments, true) };
    }
    return { ok: true, file: segments.join('/'), servedPath: encodePath(segments, false) };
  }

  /** The file that holds the complete collection (the bare collection URL). */
  collectionIndex(collection: string): { file: string; servedPath: string } {
    const segments = [...this.rootSegments(), collection];
    return { file: `${segments.join('/')}/${INDEX_FILE}`, servedPath: encodePath(segments, true) };
  }

  /** The canonical URL of the bare collection list. */
  collectionUrl(collection: string): string {
    let url = this.#collectionUrls.get(collection);
    if (url === undefined) {
      url = this.urls.canonical(`${this.root}${encodeURIComponent(collection)}/`);
      this.#collectionUrls.set(collection, url);
    }
    return url;
  }

  /**
   * The URL path a file answers, the inverse of `place` (used by verify and serve). Page files map to the
   * served page path; `index.html` maps to its directory.
   */
  servedPathOfFile(file: string): string {
    const segments = file.split('/');
    const trailingSlash = segments.at(-1) === INDEX_FILE;
    if (trailingSlash) segments.pop();
    return encodePath(segments, trailingSlash);
  }

  /**
   * The file that answers a served URL path (as a static host resolves it): `/a/b/` → `a/b/index.html`,
   * `/a/b` → `a/b`. Null when the path cannot name a file of the snapshot.
   */
  fileOfServedPath(pathname: string): string | null {
    const segments = decodedSegments(pathname, this.#segmentVerdicts);
    if (typeof segments === 'string') return null;
    if (pathname.endsWith('/')) return segments.length === 0 ? INDEX_FILE : `${segments.join('/')}/${INDEX_FILE}`;
    return segments.join('/');
  }

  /**
   * The source URL that a served path stands for: the inverse of `place` followed by link rewriting. Page paths
   * (of collections and of related lists) map back to `?page[number]=n`; the bare collection path maps to the bare
   * collection URL.
   */
  sourceUrlOfServedPath(servedPath: string): string {
    const origin = this.urls.rootParts.origin;
    const page = /^(.*\/)page\/([1-9][0-9]*)\/$/.exec(servedPath);
    if (page !== null) {
      const candidate = this.urls.canonical(`${origin}${page[1]}?page[number]=${page[2]}`);
      // Only what `place` would have put there: a list page, or a page n ≥ 2 of a related list.
      const placement = this.place(candidate);
      if (placement.ok && placement.file === this.fileOfServedPath(servedPath)) return candidate;
    }
    return this.urls.canonical(origin + servedPath);
  }

  /**
   * The canonical URL of page `page` of the list at `listUrl` (a collection or a related address), and where it is
   * stored; null when the snapshot cannot store such a page.
   */
  pageOf(listUrl: string, page: number): { url: string; file: string } | null {
    const { origin, pathname } = this.urls.resolve(listUrl).parts;
    const url = this.urls.canonical(`${origin}${pathname}?page[number]=${page}`);
    const placement = this.place(url);
    return placement.ok ? { url, file: placement.file } : null;
  }

  /** True for the file that holds a complete collection (built by the snapshot, not fetched). */
  isCollectionIndexFile(file: string): boolean {
    const parts = file.split('/');
    const rootSegments = this.rootSegments();
    return (
      parts.length === rootSegments.length + 2 &&
      parts.at(-1) === INDEX_FILE &&
      rootSegments.every((segment, i) => parts[i] === segment)
    );
  }

  /**
   * Whether the tree has room for the catalogue: the API's root is below its host's root, so the tree's top-level
   * `index.html` is the catalogue's front page, not the root document.
   */
  hasCatalogueRoom(): boolean {
    return this.rootSegmentCount > 0;
  }

  rootSegments(): string[] {
    return this.urls.rootParts.pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  }

  /** The served path of the root, e.g. `/sms/cv/api/v1/`. */
  rootPath(): string {
    return this.urls.rootParts.pathname;
  }
}
