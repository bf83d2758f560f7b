/**
 * Where a relationship that a list entry gives with links only leads (spec 2.4's `successor`: `links.self` and
 * `links.related`, no `data`), read from the documents the snapshot stored. The one reader of them, asked through
 * SnapshotReader.relationshipData (stored-records.ts) by the catalogue, its downloads, `export` and `diff`.
 *
 * The documents tried, in this order; the first one stored whose JSON has a `data` member answers:
 *
 * 1. the relationship document beside the record's own URI (its `links.self`): `<record>/relationships/<name>`;
 * 2. the relationship's own `links.self`, where the source said its relationship document is;
 * 3. the relationship document beside the URI built from the collection: `<collection>/<id>/relationships/<name>`;
 * 4. the relationship's own `links.related`;
 * 5. the related document beside the record's own URI: `<record>/<name>/`.
 *
 * A relationship document's `data` is the linkage; a related document's is the target itself (or a list of them):
 * either names where the relationship leads by type and id. At finalize, the crawl that wrote the tree names the
 * relationship documents it stored with `data: null` (most of them: a term is rarely replaced), and those answer
 * without being read again.
 *
 * Every file is read as `verify` reads one (safe-read.ts): never through a symbolic link, never a pipe, socket
 * or device, at most MAX_LINKS_ONLY_BYTES, JSON nested too deep refused. Such a document is passed over like one the
 * snapshot does not hold, and the answer names the first one met (`unusable`), which SnapshotReader turns into the
 * error every reader stops with, as for any file of the snapshot that cannot be read.
 */
import { isObject } from '../json/is-object.js';
import type { Layout } from './layout.js';
import { CHECKED_DIRS, readSnapshotJson, UnusableFileError } from './safe-read.js';
import type { StoredLinks } from './rewrite-links.js';
import { Memo } from '../url/memo.js';

/**
 * Above this size a stored relationship or related document is not read: the export's limit for a related
 * document, the largest any reader of them had, so that no answer a consistent snapshot gave before is lost.
 */
const MAX_LINKS_ONLY_BYTES = 16 << 20;

/** A record's URI as clients store it (its own links.self), and the one built from the collection that keeps it. */
export interface RecordUris {
  uri: string;
  built: string;
}

/** A record as a list page stores it: its collection, its id, and its `links.self` (null when it has none). */
export interface StoredRecord {
  collection: string;
  id: string;
  self: string | null;
}

/** What the stored documents say of one relationship given with links only. */
export interface LinksOnlyAnswer {
  /** The `data` of the first document that has one (null: it leads nowhere); undefined when none does. */
  data: unknown;
  /**
   * The first document tried that the snapshot holds but that cannot be read safely: its file, and why to end a
   * sentence that names it ("is a symbolic link, never opened"); null when there was none.
   */
  unusable: { file: string; why: string } | null;
}

/** The source URL a stored link stands for (StoredLinks.sourceUrlOf), or null when it is no http(s) URL. */
function sourceUrlOf(links: StoredLinks, link: string): string | null {
  const url = links.sourceUrlOf(link);
  return url !== null && /^https?:\/\/[^\s"'<>]+$/i.test(url) ? url : null;
}

/** A record's URIs: its own (its `links.self`) where that is a URL, and the one built from its collection. */
export function recordUris(layout: Layout, links: StoredLinks, record: StoredRecord): RecordUris {
  const built = `${layout.collectionUrl(record.collection)}${encodeURIComponent(record.id)}/`;
  const own = record.self === null ? null : sourceUrlOf(links, record.self);
  return { uri: own ?? built, built };
}

/** The reader of one stored tree (a finished snapshot, or a crawl's staged one). */
export class LinksOnlyReader {
  readonly #dir: string;
  readonly #layout: Layout;
  readonly #links: StoredLinks;
  readonly #checked: Memo<true>;
  readonly #leadingNowhere: ReadonlySet<string>;

  /**
   * `links`: how the tree's links were rewritten. `checked`: the directories the caller has already found to be
   * directories (readSnapshotFile), to share with its other reads. `leadingNowhere`: files the crawl that wrote the
   * tree stored with `data: null`, answered without reading them.
   */
  constructor(
    dir: string,
    layout: Layout,
    links: StoredLinks,
    checked = new Memo<true>(CHECKED_DIRS),
    leadingNowhere: ReadonlySet<string> = new Set(),
  ) {
    this.#dir = dir;
    this.#layout = layout;
    this.#links = links;
    this.#checked = checked;
    this.#leadingNowhere = leadingNowhere;
  }

  /**
   * Where the relationship `name` of `record`, given with links only as `relationship` (the list entry's member),
   * leads.
   */
  read(record: StoredRecord, name: string, relationship: Record<string, unknown>): LinksOnlyAnswer {
    const at = recordUris(this.#layout, this.#links, record);
    const links = isObject(relationship.links) ? relationship.links : {};
    const own = (key: string): string | null =>
      typeof links[key] === 'string' ? sourceUrlOf(this.#links, links[key]) : null;
    const tried = [
      `${at.uri}relationships/${encodeURIComponent(name)}`,
      own('self'),
      `${at.built}relationships/${encodeURIComponent(name)}`,
      own('related'),
      `${at.uri}${encodeURIComponent(name)}/`,
    ];
    let unusable: LinksOnlyAnswer['unusable'] = null;
    for (const url of tried) {
      const file = url === null ? null : this.#fileOf(url);
      if (file === null) continue;
      // As reading it would answer: the crawl parsed the document it wrote there.
      if (this.#leadingNowhere.has(file)) return { data: null, unusable };
      let document: unknown;
      try {
        document = readSnapshotJson(this.#dir, file, MAX_LINKS_ONLY_BYTES, this.#checked);
      } catch (error) {
        if (!(error instanceof UnusableFileError)) throw error;
        unusable ??= { file, why: error.message };
        continue;
      }
      if (isObject(document) && 'data' in document) return { data: document.data, unusable };
    }
    return { data: undefined, unusable };
  }

  /** Where the snapshot stores the document at `url`, or null (a source's link may be anything). */
  #fileOf(url: string): string | null {
    try {
      const placement = this.#layout.place(url);
      return placement.ok ? placement.file : null;
    } catch {
      return null;
    }
  }
}
