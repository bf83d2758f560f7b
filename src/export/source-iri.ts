/**
 * The source's own URL of a link the snapshot stored, as an IRI: crawl may have rewritten it (`--links relative` or
 * `absolute`), and StoredLinks (src/format/rewrite-links.ts) undoes that; a link it did not rewrite is resolved
 * against the API root. `format=api` (a rendering hint of the live service, not part of an identifier) is dropped.
 */
import type { Layout } from '../format/layout.js';
import type { StoredLinks } from '../format/rewrite-links.js';
import { Memo } from '../url/memo.js';

/** Characters an IRI may not hold (RFC 3987; Turtle's IRIREF), percent-encoded wherever they occur. */
// eslint-disable-next-line no-control-regex -- control characters are among what this encodes
const NOT_IN_IRI = /[\u0000-\u0020<>"{}|^`\\\u007f]/g;

function percentEncode(char: string): string {
  return [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

export class SourceIris {
  readonly #root: string;
  readonly #layout: Layout;
  readonly #links: StoredLinks;
  /** IRIs of links seen lately: a record's CSV row and its graph node ask for the same ones. */
  readonly #known: Memo<string | null>;

  /** `root`: the API root; `remembered`: how many IRIs to keep in each of the memo's two generations. */
  constructor(root: string, layout: Layout, links: StoredLinks, remembered = 4096) {
    this.#known = new Memo(remembered);
    this.#root = root;
    this.#layout = layout;
    this.#links = links;
  }

  /** The source URL `link` stands for, as an IRI; null when it is not an http(s) URL. */
  of(link: string): string | null {
    let iri = this.#known.get(link);
    if (iri === undefined) this.#known.set(link, (iri = this.#iri(link)));
    return iri;
  }

  #iri(link: string): string | null {
    const source = this.#links.sourceUrlOf(link);
    if (source === null || !URL.canParse(source, this.#root)) return null;
    const url = new URL(source, this.#root);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.searchParams.has('format')) {
      url.searchParams.delete('format');
      if (url.search === '?') url.search = '';
    }
    url.hash = '';
    return url.href.replace(NOT_IN_IRI, percentEncode);
  }

  /** An attribute's URL (`provenance_uri`) as an IRI, unchanged but what an IRI cannot hold; null unless http(s). */
  external(text: string): string | null {
    if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) return null;
    return new URL(text).href.replace(NOT_IN_IRI, percentEncode);
  }

  /** The IRI of a record that has no usable `links.self`: where the API (spec 2.1) puts it. */
  recordFallback(collection: string, id: string): string {
    return `${this.#layout.collectionUrl(collection)}${encodeURIComponent(id)}/`.replace(NOT_IN_IRI, percentEncode);
  }
}
