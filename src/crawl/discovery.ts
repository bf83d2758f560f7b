/**
 * Link discovery and its guards: which links of a document become URLs to fetch. A link is fetched when it resolves
 * to a canonical URL (one spelling per document, so each is fetched once), is in scope, does not run past the pages
 * its list declares, has not been seen, and the crawl is still within --max-documents. Everything refused on the
 * way is a finding, reported once per document.
 *
 * Two parts: `documentTargets` needs only the document, its links and the run's fixed settings, so it runs wherever
 * the document is read (this thread or a worker thread); `Discovery` holds the set of URLs seen and admits targets
 * into it, on the thread that owns the crawl.
 */
import { TooManyDocumentsError } from '../util/errors.js';
import { resolveLink, type DocumentLink } from '../jsonapi/links.js';
import type { ApiLocation } from '../url/api-location.js';
import { InvalidUrlError } from '../url/canonical-url.js';
import { UrlSet } from '../url/url-set.js';
import type { ParsedUrl, UrlSpace } from '../url/url-space.js';
import type { Finding } from '../validate/finding.js';

/** A page of a list (a collection, or a related list the source paginates) and how many pages that list declares. */
export interface DeclaredPages {
  list: ListPage;
  pages: number;
}

type ListPage = Extract<ApiLocation, { kind: 'list' } | { kind: 'related' }>;

/** What a document's links lead to: the URLs to fetch (unless seen), and a finding for each link refused. */
export interface DocumentTargets {
  /** Canonical URLs in scope, in document order. */
  urls: string[];
  findings: Finding[];
}

/** meta.pagination.pages of a list page, when it is a positive integer. */
function declaredPages(json: unknown): number | undefined {
  const pages = (json as { meta?: { pagination?: { pages?: unknown } } } | null)?.meta?.pagination?.pages;
  return typeof pages === 'number' && Number.isInteger(pages) && pages > 0 ? pages : undefined;
}

/** The pages a list page (of a collection or a related list) declares; undefined for other documents. */
export function listPages(location: ApiLocation, json: unknown): DeclaredPages | undefined {
  if (location.kind !== 'list' && location.kind !== 'related') return undefined;
  const pages = declaredPages(json);
  return pages === undefined ? undefined : { list: location, pages };
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

/**
 * The targets of a document's links. A list page that declares its `pages` cannot send the crawl past that page of
 * its list: a source that paginates endlessly is a finding, not a hang. A refused link is reported once per
 * document, in every document that has it: the report then does not depend on the order documents arrive in, and no
 * set of every outside URL grows with the crawl.
 */
export function documentTargets(
  links: readonly DocumentLink[],
  from: string,
  root: string,
  declared?: DeclaredPages,
  /** Leaves out targets known to be seen already (a worker thread's targets announced before). */
  known?: (target: ParsedUrl) => boolean,
): DocumentTargets {
  const urls: string[] = [];
  const findings: Finding[] = [];
  let reported: Set<string> | undefined;
  const firstReport = (key: string): boolean => {
    reported ??= new Set();
    if (reported.has(key)) return false;
    reported.add(key);
    return true;
  };
  for (const { link, target } of links) {
    if (target instanceof InvalidUrlError) {
      if (firstReport(link)) {
        findings.push({ url: from, pointer: '', rule: 'link.invalid', severity: 'warning', message: target.message });
      }
      continue;
    }
    if (!target.inScope) {
      if (firstReport(target.url)) {
        findings.push({
          url: from,
          pointer: '',
          rule: 'scope.outside',
          severity: 'warning',
          message: `The link ${target.url} is outside the root URL ${root}; it was recorded, not fetched.`,
        });
      }
      continue;
    }
    const { location } = target;
    if (declared !== undefined && sameList(location, declared.list) && location.page > declared.pages) {
      if (firstReport(target.url)) {
        findings.push({
          url: from,
          pointer: '',
          rule: 'pagination.runaway',
          severity: 'error',
          message:
            `${from} links to page ${location.page} of ${listName(declared.list)}, past the ${declared.pages} ` +
            `pages it declares; that page was not fetched.`,
        });
      }
      continue;
    }
    if (known?.(target) !== true) urls.push(target.url);
  }
  return { urls, findings };
}

export interface DiscoveryOptions {
  root: string;
  urls: UrlSpace;
  /** URLs known to an earlier crawl, taken over (not copied: the largest structure of a crawl is not held twice). */
  seen?: UrlSet;
  maxDocuments?: number;
  onFinding(finding: Finding): void;
}

export class Discovery {
  readonly #options: DiscoveryOptions;
  readonly #seen: UrlSet;

  constructor(options: DiscoveryOptions) {
    this.#options = options;
    this.#seen = options.seen ?? new UrlSet(options.root);
  }

  /** Marks a URL seen without discovering it (the root, which the crawl starts from). */
  markSeen(url: string): void {
    this.#seen.add(url);
  }

  /**
   * Records the findings of a document's targets, marks the targets not seen before as seen and returns them, in
   * document order.
   */
  admit({ urls, findings }: DocumentTargets): string[] {
    for (const finding of findings) this.#options.onFinding(finding);
    const { maxDocuments } = this.#options;
    const found: string[] = [];
    for (const url of urls) {
      if (this.#seen.has(url)) continue;
      if (maxDocuments !== undefined && this.#seen.size >= maxDocuments) {
        throw new TooManyDocumentsError(maxDocuments, url);
      }
      this.#seen.add(url);
      found.push(url);
    }
    return found;
  }

  /** `admit` for links that are not in a document read here (a redirect's target, a derived document's links). */
  discover(links: string[], from: string): string[] {
    const { urls, root } = this.#options;
    const resolved = links.map((link) => ({ holder: {}, key: '', link, target: resolveLink(link, from, urls) }));
    return this.admit(documentTargets(resolved, from, root));
  }
}
