/**
 * Link discovery and its guards: which links of a document become URLs to fetch. A link is fetched when it resolves
 * to a canonical URL (one spelling per document, so each is fetched once), is in scope, has not been seen, does not
 * run past the pages its list declares, and the crawl is still within --max-documents. Everything refused on the
 * way is a finding, reported once per document.
 */
import { TooManyDocumentsError } from '../errors.js';
import type { ApiLocation } from '../url/api-location.js';
import { InvalidUrlError } from '../url/canonical-url.js';
import type { UrlSpace } from '../url/url-space.js';
import type { Finding } from '../validate/finding.js';

/** A page of a list (a collection, or a related list the source paginates) and how many pages that list declares. */
export interface DeclaredPages {
  list: ListPage;
  pages: number;
}

type ListPage = Extract<ApiLocation, { kind: 'list' } | { kind: 'related' }>;

/** meta.pagination.pages of a list page, when it is a positive integer. */
export function declaredPages(json: unknown): number | undefined {
  const pages = (json as { meta?: { pagination?: { pages?: unknown } } } | null)?.meta?.pagination?.pages;
  return typeof pages === 'number' && Number.isInteger(pages) && pages > 0 ? pages : undefined;
}

/** Whether `location` is a page of the same list as `list`. */
function sameList(location: ApiLocation, list: ListPage): location is ListPage {
  if (location.kind !== list.kind || location.collection !== list.collection) return false;
  if (list.kind === 'list') return true;
  const related = location as Extract<ApiLocation, { kind: 'related' }>;
  return related.id === list.id && related.relationship === list.relationship;
}

/** How a finding names a list: the collection, or the related address below the root. */
function listName(list: ListPage): string {
  return list.kind === 'list' ? list.collection : `${list.collection}/${list.id}/${list.relationship}/`;
}

export interface DiscoveryOptions {
  root: string;
  urls: UrlSpace;
  /** URLs known to an earlier crawl, taken over (not copied: the largest structure of a crawl is not held twice). */
  seen?: Set<string>;
  maxDocuments?: number;
  onFinding(finding: Finding): void;
}

export class Discovery {
  readonly #options: DiscoveryOptions;
  readonly #seen: Set<string>;

  constructor(options: DiscoveryOptions) {
    this.#options = options;
    this.#seen = options.seen ?? new Set<string>();
  }

  /** Marks a URL seen without discovering it (the root, which the crawl starts from). */
  markSeen(url: string): void {
    this.#seen.add(url);
  }

  /**
   * Marks the new targets of `links` as seen and returns them, in document order. A list page that declares its
   * `pages` cannot send the crawl past that page of its list: a source that paginates endlessly is a finding, not a
   * hang.
   */
  discover(links: string[], from: string, declared?: DeclaredPages): string[] {
    const { maxDocuments } = this.#options;
    const found: string[] = [];
    const reported = new Set<string>();
    for (const link of links) {
      const url = this.#target(link, from, reported);
      if (url === null || this.#seen.has(url)) continue;
      if (declared !== undefined && this.#runsAway(url, from, declared, reported)) continue;
      if (maxDocuments !== undefined && this.#seen.size >= maxDocuments) {
        throw new TooManyDocumentsError(maxDocuments, url);
      }
      this.#seen.add(url);
      found.push(url);
    }
    return found;
  }

  /** True (recorded as a finding, once per document) for a page past the pages its list declares. */
  #runsAway(url: string, from: string, declared: DeclaredPages, reported: Set<string>): boolean {
    const location = this.#options.urls.locate(url);
    if (!sameList(location, declared.list) || location.page <= declared.pages) return false;
    if (reported.has(url)) return true;
    reported.add(url);
    this.#options.onFinding({
      url: from,
      pointer: '',
      rule: 'pagination.runaway',
      severity: 'error',
      message:
        `${from} links to page ${location.page} of ${listName(declared.list)}, past the ${declared.pages} ` +
        `pages it declares; that page was not fetched.`,
    });
    return true;
  }

  /**
   * The canonical in-scope target of a link, or null (recorded as a finding) when it is not to be fetched. A link is
   * reported once per document (`reported`), in every document that has it: the report then does not depend on the
   * order documents arrive in, and no set of every outside URL grows with the crawl.
   */
  #target(link: string, from: string, reported: Set<string>): string | null {
    const { root, urls } = this.#options;
    let url: string;
    try {
      url = urls.canonical(link, from);
    } catch (error) {
      if (!(error instanceof InvalidUrlError)) throw error;
      if (!reported.has(link)) {
        reported.add(link);
        this.#options.onFinding({
          url: from,
          pointer: '',
          rule: 'link.invalid',
          severity: 'warning',
          message: error.message,
        });
      }
      return null;
    }
    if (!urls.inScope(url)) {
      if (!reported.has(url)) {
        reported.add(url);
        this.#options.onFinding({
          url: from,
          pointer: '',
          rule: 'scope.outside',
          severity: 'warning',
          message: `The link ${url} is outside the root URL ${root}; it was recorded, not fetched.`,
        });
      }
      return null;
    }
    return url;
  }
}
