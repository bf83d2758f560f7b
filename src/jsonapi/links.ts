/**
 * The places in a CV API document that hold links (docs/source-api.md): every member of every `links` object
 * (top-level, resource and relationship links; a member may be a string or a link object with `href`), and the
 * collection URLs that the root index lists under `data`. The link extractor, the crawl's link resolution
 * (crawl/discovery.ts), the link rewriter and verify all walk exactly these places.
 */
import { isObject } from '../json/is-object.js';
import { InvalidUrlError } from '../url/canonical-url.js';
import type { ParsedUrl, UrlSpace } from '../url/url-space.js';

export type LinkVisitor = (link: string) => string | undefined;

/** Called with each link's text and where it is: writing `holder[key]` rewrites it in place. */
type SlotVisitor = (holder: Record<string, unknown>, key: string, link: string) => void;

// The walks use `for…in` over parsed JSON (own, enumerable members only, in the same order as Object.entries)
// rather than Object.entries, which allocates an array per member: this runs over every document of a crawl.

function visitLinksObject(links: Record<string, unknown>, visit: SlotVisitor): void {
  for (const key in links) {
    const value = links[key];
    if (typeof value === 'string') visit(links, key, value);
    else if (isObject(value) && typeof value.href === 'string') visit(value, 'href', value.href);
  }
}

function walk(value: unknown, visit: SlotVisitor): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
    return;
  }
  if (!isObject(value)) return;
  for (const key in value) {
    const member = value[key];
    if (key === 'links' && isObject(member)) visitLinksObject(member, visit);
    else if (key !== 'attributes' && key !== 'meta') walk(member, visit);
  }
}

/** Calls `visit` with the holder, key and text of every link in `document`, in document order. */
function visitSlots(document: unknown, isRootIndex: boolean, visit: SlotVisitor): void {
  if (isRootIndex && isObject(document) && isObject(document.data)) {
    visitLinksObject(document.data, visit);
    for (const key in document) {
      const member = document[key];
      if (key === 'links' && isObject(member)) visitLinksObject(member, visit);
      else if (key !== 'data' && key !== 'meta') walk(member, visit);
    }
    return;
  }
  walk(document, visit);
}

/**
 * Calls `visit` for every link in `document`; a returned string replaces the link in place. `isRootIndex` says the
 * document is the root index, whose `data` maps collection names to URLs (spec §4).
 */
export function visitLinks(document: unknown, isRootIndex: boolean, visit: LinkVisitor): void {
  visitSlots(document, isRootIndex, (holder, key, link) => {
    const next = visit(link);
    if (next !== undefined) holder[key] = next;
  });
}

/**
 * A link of a document, resolved once against the document's URL: discovery reads its target, and the link
 * rewriter writes the new text into its place.
 */
export interface DocumentLink {
  /** Where the link is: writing `holder[key]` rewrites it in place. */
  readonly holder: Record<string, unknown>;
  readonly key: string;
  /** The link as the document gives it. */
  readonly link: string;
  /** Its canonical target, parsed; the reason when it is not a usable URL. */
  readonly target: ParsedUrl | InvalidUrlError;
}

/** `link` resolved against `from` in the run's space of URLs, or why it is not a usable URL. */
export function resolveLink(link: string, from: string, urls: UrlSpace): ParsedUrl | InvalidUrlError {
  try {
    return urls.resolve(link, from);
  } catch (error) {
    if (!(error instanceof InvalidUrlError)) throw error;
    return error;
  }
}

/** Every link of `document` (fetched from the canonical `url`), resolved against it, in document order. */
export function resolveLinks(document: unknown, isRootIndex: boolean, url: string, urls: UrlSpace): DocumentLink[] {
  const links: DocumentLink[] = [];
  visitSlots(document, isRootIndex, (holder, key, link) => {
    links.push({ holder, key, link, target: resolveLink(link, url, urls) });
  });
  return links;
}
