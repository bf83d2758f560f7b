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
  /** meta.pagination.count of a collection's page, when it is a whole number. */
  count?: number;
}

type ListPage = Extract<ApiLocation, { kind: 'list' } | { kind: 'related' }>;

/** What a document's links lead to: the URLs to fetch (unless seen), and a finding for each link refused. */
export interface DocumentTargets {
  /** The document's canonical URL. */
  from: string;
  /** Canonical URLs in scope, in document order. */
  urls: string[];
  /**
   * For each of `urls`, what bounds it by what a list's first page announced (`Discovery.admit`): a page past the
   * first of a list, the collection of a record (a string: no object per link), or nothing (null).
   */
  bounded: Array<ListTarget | string | null>;
  findings: Finding[];
  /** The pages the document declares, when it is a page of a list that declares them. */
  declares?: { list: string; page: number; pages: number; count?: number };
}

/** A page past the first of a list (a collection's, or a related list's, named as `listName` names it). */
interface ListTarget {
  list: string;
  page: number;
}

type Pagination = { pages?: unknown; count?: unknown } | undefined;

/** The pages a list page (of a collection or a related list) declares; undefined for other documents. */
export function listPages(location: ApiLocation, json: unknown): DeclaredPages | undefined {
  if (location.kind !== 'list' && location.kind !== 'related') return undefined;
  const pagination = (json as { meta?: { pagination?: Pagination } } | null)?.meta?.pagination;
  const { pages, count } = pagination ?? {};
  if (typeof pages !== 'number' || !Number.isInteger(pages) || pages <= 0) return undefined;
  const declared: DeclaredPages = { list: location, pages };
  if (location.kind === 'list' && typeof count === 'number' && Number.isInteger(count) && count >= 0) {
    declared.count = count;
  }
  return declared;
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
  const bounded: DocumentTargets['bounded'] = [];
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
    if (known?.(target) === true) continue;
    urls.push(target.url);
    if (location.kind === 'record') bounded.push(location.collection);
    else if ((location.kind === 'list' || location.kind === 'related') && location.page > 1) {
      bounded.push({ list: listName(location), page: location.page });
    } else bounded.push(null);
  }
  const targets: DocumentTargets = { from, urls, bounded, findings };
  if (declared !== undefined) {
    const { list, pages, count } = declared;
    targets.declares = { list: listName(list), page: list.page, pages, ...(count !== undefined ? { count } : {}) };
  }
  return targets;
}

/**
 * How many records of a collection the crawl fetches beyond the count its first page announced (that many again, and
 * at least this many): records a source links to without listing them (a deprecated record its successor names),
 * and records added while it is crawled.
 */
const UNLISTED_RECORDS = 100;

/** What a list's first page announced, by list: its pages and, for a collection, its count of records. */
export interface FirstPages {
  pages(list: string): number | undefined;
  count(collection: string): number | undefined;
}

export interface DiscoveryOptions {
  root: string;
  urls: UrlSpace;
  /** URLs known to an earlier crawl, taken over (not copied: the largest structure of a crawl is not held twice). */
  seen?: UrlSet;
  maxDocuments?: number;
  /**
   * What the first page of each list said when it was last stored (a crawl that goes on from an earlier one, or
   * fetches pages again, knows them before it reads page 1 itself).
   */
  firstPages?: FirstPages;
  onFinding(finding: Finding): void;
}

/**
 * Discovery's bound on what a source can make the crawl fetch (docs/safety.md#bounded): a list's pages and a
 * collection's records are held to what the list's first page announced, so a source whose every page announces one
 * page more, or whose every record links to a new one, ends. A URL held back is a `pagination.unbounded` finding
 * naming it and its list; the snapshot is then partial (src/pipeline/run-state.ts).
 */
export class Discovery {
  readonly #options: DiscoveryOptions;
  readonly #seen: UrlSet;
  /** What the first page of each list read by this crawl declares: pages by list, records by collection. */
  readonly #firstPages = new Map<string, number>();
  readonly #firstCounts = new Map<string, number>();
  /** Records of each collection admitted by this crawl. */
  readonly #records = new Map<string, number>();

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
  admit(targets: DocumentTargets): string[] {
    const { urls, findings, bounded, declares } = targets;
    for (const finding of findings) this.#options.onFinding(finding);
    if (declares?.page === 1) {
      this.#firstPages.set(declares.list, declares.pages);
      if (declares.count !== undefined) this.#firstCounts.set(declares.list, declares.count);
    }
    const { maxDocuments } = this.#options;
    const found: string[] = [];
    for (let i = 0; i < urls.length; i++) {
      const url = urls[i]!;
      if (this.#seen.has(url)) continue;
      const bound = bounded[i];
      if (bound != null && this.#heldBack(url, bound, targets)) continue;
      if (maxDocuments !== undefined && this.#seen.size >= maxDocuments) {
        throw new TooManyDocumentsError(maxDocuments, url);
      }
      this.#seen.add(url);
      found.push(url);
    }
    return found;
  }

  /** Whether `url` goes past what its list's first page announced; if so, a finding says so. */
  #heldBack(url: string, bound: ListTarget | string, { from, declares }: DocumentTargets): boolean {
    const first = this.#options.firstPages;
    if (typeof bound !== 'string') {
      const pages = this.#firstPages.get(bound.list) ?? first?.pages(bound.list);
      if (pages === undefined || bound.page <= pages) return false;
      const said = declares?.list === bound.list ? `, which declares ${declares.pages} pages,` : '';
      this.#hold(
        url,
        `Page ${bound.page} of ${bound.list} was not fetched: ${from}${said} links to it, past the ${pages} ` +
          `pages the first page of ${bound.list} declares. A list is held to what its first page announces, or a ` +
          'source whose every page announces one more would never end.',
      );
      return true;
    }
    const collection = bound;
    const count = this.#firstCounts.get(collection) ?? first?.count(collection);
    const admitted = this.#records.get(collection) ?? 0;
    const limit = count === undefined ? undefined : count + Math.max(count, UNLISTED_RECORDS);
    if (limit === undefined || admitted < limit) {
      this.#records.set(collection, admitted + 1);
      return false;
    }
    this.#hold(
      url,
      `${url} was not fetched: ${from} links to it, and the crawl has found ${admitted} records of ` +
        `${collection}, where its first page counts ${count}. A collection is held to what its first page ` +
        `announces (its count, and as many again or ${UNLISTED_RECORDS} that it may link to without listing them), ` +
        'or a source whose every record links to a new one would never end.',
    );
    return true;
  }

  #hold(url: string, message: string): void {
    this.#options.onFinding({ url, pointer: '', rule: 'pagination.unbounded', severity: 'error', message });
  }

  /** `admit` for links that are not in a document read here (a redirect's target, a derived document's links). */
  discover(links: string[], from: string): string[] {
    const { urls, root } = this.#options;
    const resolved = links.map((link) => ({ holder: {}, key: '', link, target: resolveLink(link, from, urls) }));
    return this.admit(documentTargets(resolved, from, root));
  }
}
