/**
 * Cross-document invariants (docs/architecture.md#validation), checked in finalize from the summaries validateDocument
 * returns. Only compact tallies are kept: the set of resources seen, one entry per distinct target not seen (yet) as a
 * resource, and a few numbers per list page, so memory follows the number of records rather than the number of
 * documents. add() may be called in any order; finish() gives the same findings for any order.
 */
import { createHash } from 'node:crypto';
import { UrlSpace } from '../url/url-space.js';
import { isDescribedType, SPEC_COLLECTIONS } from './cv-types.js';
import type { Finding } from './finding.js';
import { escapePointerSegment, finding, sortFindings, type RuleName } from './rules.js';
import type { DocumentSummary, ListSummary } from './summary.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { flatKey, KEY_SEPARATOR } from '../util/flat-key.js';
import { noun, plural } from '../util/plural.js';

/** The rules by which a collection's pages disagree with each other. */
const CONSISTENCY_RULES = new Set<RuleName>(['pagination.pages', 'pagination.count', 'pagination.duplicate']);

export interface UnsettledCollection {
  /** Canonical URLs of its pages, by page number. */
  pages: string[];
  /** The first finding that says how its pages disagree. */
  disagreement: Finding;
  /** SHA-256 of what each page said (totals and records): equal when the source answered the same. */
  fingerprint: string;
}

interface PageTally {
  url: string;
  pages: number | null;
  count: number | null;
  records: number;
  /** "type\0id" of the records of data, in order. */
  ids: string[];
  next: ListSummary['next'];
  prev: ListSummary['prev'];
}

/** Where a target was first referenced (smallest url, then pointer, so the choice does not depend on order). */
interface Referrer {
  url: string;
  pointer: string;
  references: number;
}

/** How many missing page numbers a finding names before it summarises the rest. */
const MISSING_PAGES_LISTED = 10;

function isBefore(url: string, pointer: string, than: Referrer): boolean {
  return url < than.url || (url === than.url && pointer < than.pointer);
}

export class InvariantChecker {
  readonly #root: string;
  /** "type\0id" of every resource seen anywhere. */
  readonly #resources = new Set<string>();
  /** Type → how many distinct resources of it were seen. */
  readonly #typeCounts = new Map<string, number>();
  /** "rule\0type\0id" → first referrer, for targets not (yet) seen as resources. */
  readonly #targets = new Map<string, Referrer>();
  /** collection → page number → tally. */
  readonly #lists = new Map<string, Map<number, PageTally>>();
  #rootIndex: { url: string; collections: Set<string> } | undefined;

  readonly #urls: UrlSpace;

  /** `urls`: the run's parsed URLs, shared with the crawl. */
  constructor(root: string, urls: UrlSpace = new UrlSpace(root)) {
    this.#root = root;
    this.#urls = urls;
  }

  /** Adds the summary of the document at `url`; `canonical` is its canonical spelling, when the caller knows it. */
  add(url: string, summary: DocumentSummary, canonical = this.#urls.canonical(url)): void {
    if (summary.kind === 'root') {
      const collections = this.#rootIndex?.collections ?? new Set<string>();
      for (const name of summary.collections) collections.add(name);
      this.#rootIndex = { url: canonical, collections };
      return;
    }
    for (const [type, id] of summary.resources) {
      const key = flatKey(type, id);
      if (this.#resources.has(key)) continue;
      this.#resources.add(key);
      this.#typeCounts.set(type, (this.#typeCounts.get(type) ?? 0) + 1);
      // A present target needs no referrer any more: only the dangling ones are kept.
      this.#targets.delete(flatKey('reference.target', key));
      this.#targets.delete(flatKey('community.root', key));
    }
    for (const [type, id, pointer] of summary.targets)
      this.#reference('reference.target', type, id, canonical, pointer);
    for (const [type, id, pointer] of summary.roots) this.#reference('community.root', type, id, canonical, pointer);
    if (summary.kind === 'list') {
      let pages = this.#lists.get(summary.collection);
      if (pages === undefined) this.#lists.set(summary.collection, (pages = new Map<number, PageTally>()));
      const { pages: pageCount, count, records, next, prev } = summary;
      const ids = summary.resources.slice(0, summary.listed ?? 0).map(([type, id]) => flatKey(type, id));
      // A page fetched again (the collection shifted while it was crawled) replaces what it said before.
      pages.set(summary.page, { url: canonical, pages: pageCount, count, records, ids, next, prev });
    }
  }

  #reference(rule: RuleName, type: string, id: string, url: string, pointer: string): void {
    if (this.#resources.has(flatKey(type, id))) return;
    const key = flatKey(rule, type, id);
    const referrer = this.#targets.get(key);
    if (referrer === undefined) {
      this.#targets.set(key, { url, pointer, references: 1 });
      return;
    }
    referrer.references += 1;
    if (isBefore(url, pointer, referrer)) {
      referrer.url = url;
      referrer.pointer = pointer;
    }
  }

  /**
   * The collections whose pages disagree with each other (counts or page totals differ, pages are missing, a record
   * is listed twice, fewer distinct records than counted): each with the URLs of its pages, what disagrees (the first
   * such finding) and a fingerprint of what its pages say, which tells a source that answers the same every time from
   * one that shifts. The tallies stay: a page fetched again replaces its own.
   */
  unsettledCollections(): Map<string, UnsettledCollection> {
    const unsettled = new Map<string, UnsettledCollection>();
    for (const [collection, pages] of this.#lists) {
      const findings: Finding[] = [];
      checkPagination(findings, collection, pages);
      const disagreement = sortFindings(findings).find((f) => CONSISTENCY_RULES.has(f.rule));
      if (disagreement === undefined) continue;
      const numbers = [...pages.keys()].sort((a, b) => a - b);
      const hash = createHash('sha256');
      for (const n of numbers) {
        const { pages: total, count, ids } = pages.get(n)!;
        hash.update(`${n}:${String(total)}:${String(count)}:${ids.join('\u0001')}\n`);
      }
      unsettled.set(collection, {
        pages: numbers.map((n) => pages.get(n)!.url),
        disagreement,
        fingerprint: hash.digest('hex'),
      });
    }
    return unsettled;
  }

  /** The count page 1 of each collection stated (for --resume: a cheap sign that the source changed). */
  /** The `meta.pagination.pages` page 1 of `collection` declared when it was last stored; undefined until then. */
  firstPageDeclares(collection: string): number | undefined {
    return this.#lists.get(collection)?.get(1)?.pages ?? undefined;
  }

  /** The `meta.pagination.count` page 1 of `collection` declared when it was last stored; undefined until then. */
  firstPageCount(collection: string): number | undefined {
    return this.#lists.get(collection)?.get(1)?.count ?? undefined;
  }

  firstPageCounts(): Map<string, { url: string; count: number }> {
    const counts = new Map<string, { url: string; count: number }>();
    for (const [collection, pages] of this.#lists) {
      const first = pages.get(1);
      if (first?.count != null) counts.set(collection, { url: first.url, count: first.count });
    }
    return counts;
  }

  /**
   * The cross-document findings, sorted by url, pointer and rule. The tallies are released afterwards (finalize goes
   * on to build the catalogue, and 200,000 documents' tallies are megabytes): the checker is spent.
   */
  finish(): Finding[] {
    const findings: Finding[] = [];
    this.#checkRootIndex(findings);
    for (const [collection, pages] of this.#lists) checkPagination(findings, collection, pages);
    if (this.#rootIndex !== undefined) {
      for (const name of this.#rootIndex.collections) {
        if (this.#lists.has(name)) continue;
        findings.push(
          finding(
            this.#rootIndex.url,
            `/data/${escapePointerSegment(name)}`,
            'pagination.pages',
            `The root index lists collection ${name} but the snapshot holds none of its pages; crawl again, since ` +
              `all of its records are missing.`,
          ),
        );
      }
    }
    this.#checkTargets(findings);
    this.#resources.clear();
    this.#targets.clear();
    this.#lists.clear();
    return sortFindings(findings);
  }

  /**
   * Types the spec does not describe (2.3, 2.4), with how many distinct resources of each the snapshot holds; for
   * the report (buildReport).
   */
  undescribedTypes(): Record<string, number> {
    const undescribed = [...this.#typeCounts].filter(([type]) => !isDescribedType(type));
    return Object.fromEntries(undescribed.sort(([a], [b]) => byCodeUnits(a, b)));
  }

  #checkRootIndex(findings: Finding[]): void {
    const index = this.#rootIndex;
    if (index === undefined) {
      findings.push(
        finding(
          this.#root,
          '',
          'root.collections',
          `The snapshot has no root index at ${this.#root}; check the root URL, since every collection is found ` +
            `through it.`,
        ),
      );
      return;
    }
    const expected = new Set(SPEC_COLLECTIONS);
    for (const name of SPEC_COLLECTIONS) {
      if (!index.collections.has(name)) {
        findings.push(
          finding(
            index.url,
            '/data',
            'root.collections',
            `The root index does not list collection ${name} of spec 2.2, so the snapshot lacks it; check that the ` +
              `service is complete or that the root URL is right.`,
          ),
        );
      }
    }
    for (const name of index.collections) {
      if (!expected.has(name)) {
        findings.push(
          finding(
            index.url,
            `/data/${escapePointerSegment(name)}`,
            'root.collections',
            `The root index lists collection ${name}, which spec 2.2 does not name; it was crawled like the others, ` +
              `but check that clients know it.`,
            'warning',
          ),
        );
      }
    }
  }

  #checkTargets(findings: Finding[]): void {
    for (const [key, referrer] of this.#targets) {
      const [rule, type, id] = key.split(KEY_SEPARATOR) as [RuleName, string, string];
      if (this.#resources.has(flatKey(type, id))) continue;
      const others = referrer.references - 1;
      const elsewhere = others === 0 ? '' : ` (referenced ${others} more ${noun(others, 'time')} elsewhere)`;
      const what = rule === 'community.root' ? `the community record's root ${type} ${id}` : `${type} ${id}`;
      findings.push(
        finding(
          referrer.url,
          referrer.pointer,
          rule,
          `This document refers to ${what}, which is not in the snapshot${elsewhere}; the mirror will answer 404 for ` +
            `it, so check that the crawl completed or report the dangling reference to the vocabulary maintainers.`,
        ),
      );
    }
  }
}

/** The pages a collection's totals are judged by: the lowest page that states each, and what it states. */
interface PaginationReference {
  /** The lowest page stating how many pages there are, and that number. */
  reference: { page: number; tally: PageTally } | undefined;
  lastPage: number | null;
  /** The lowest page stating how many records there are, and that number. */
  countReference: { page: number; tally: PageTally } | undefined;
  total: number | null;
}

/** spec 4.1 across the pages of one collection. */
function checkPagination(findings: Finding[], collection: string, pages: Map<number, PageTally>): void {
  const numbers = [...pages.keys()].sort((a, b) => a - b);
  const said = paginationReference(pages, numbers);
  for (const n of numbers) checkPage(findings, collection, n, pages.get(n)!, said);
  const duplicates = checkDuplicates(findings, collection, pages, numbers);
  if (said.reference === undefined || said.lastPage === null) return;
  if (checkMissingPages(findings, collection, pages, numbers, said.reference.tally, said.lastPage)) return;
  checkRecordCount(findings, collection, pages, said, duplicates);
}

function paginationReference(pages: Map<number, PageTally>, numbers: readonly number[]): PaginationReference {
  // The lowest page that states a total is the reference the others must agree with.
  let reference: { page: number; tally: PageTally } | undefined;
  let countReference: { page: number; tally: PageTally } | undefined;
  for (const n of numbers) {
    const tally = pages.get(n)!;
    if (reference === undefined && tally.pages !== null) reference = { page: n, tally };
    if (countReference === undefined && tally.count !== null) countReference = { page: n, tally };
  }
  return {
    reference,
    lastPage: reference?.tally.pages ?? null,
    countReference,
    total: countReference?.tally.count ?? null,
  };
}

/** Page `n`: its totals agree with the reference pages', it is within them, and its prev and next links fit. */
function checkPage(
  findings: Finding[],
  collection: string,
  n: number,
  tally: PageTally,
  said: PaginationReference,
): void {
  const { reference, lastPage, countReference, total } = said;
  if (reference !== undefined && tally.pages !== null && tally.pages !== lastPage) {
    findings.push(
      finding(
        tally.url,
        '/meta/pagination/pages',
        'pagination.pages',
        `Page ${n} of ${collection} says there are ${tally.pages} pages but page ${reference.page} says ` +
          `${String(lastPage)}; the collection changed during the crawl or the service counts wrongly, so crawl ` +
          `again.`,
      ),
    );
  }
  if (countReference !== undefined && tally.count !== null && tally.count !== total) {
    findings.push(
      finding(
        tally.url,
        '/meta/pagination/count',
        'pagination.count',
        `Page ${n} of ${collection} says there are ${tally.count} records but page ${countReference.page} says ` +
          `${String(total)}; the collection changed during the crawl or the service counts wrongly, so crawl again.`,
      ),
    );
  }
  if (lastPage !== null && n > lastPage) {
    findings.push(
      finding(
        tally.url,
        '/meta/pagination/page',
        'pagination.pages',
        `Page ${n} of ${collection} exists although the collection says it has ${lastPage} pages; clients that ` +
          `stop at meta.pagination.pages will miss its records.`,
      ),
    );
  }
  // spec 4.1: prev is null on the first page (and only there), next is null on the last page (and only there).
  if (tally.prev !== 'absent' && (tally.prev === 'null') !== (n === 1)) {
    findings.push(
      finding(
        tally.url,
        '/links/prev',
        'pagination.prev',
        n === 1
          ? `Page 1 of ${collection} has a prev link; spec 4.1 makes it null on the first page, and clients ` +
              `following it may loop.`
          : `Page ${n} of ${collection} has a null prev link although it is not the first page; clients walking ` +
              `backwards stop early.`,
      ),
    );
  }
  if (lastPage !== null && tally.next !== 'absent' && (tally.next === 'null') !== n >= lastPage) {
    findings.push(
      finding(
        tally.url,
        '/links/next',
        'pagination.next',
        n >= lastPage
          ? `Page ${n} of ${collection} is the last of ${lastPage} pages but has a next link; spec 4.1 makes it ` +
              `null there, and clients following it read past the end.`
          : `Page ${n} of ${collection} has a null next link although the collection has ${lastPage} pages; ` +
              `clients following next stop early and miss records.`,
      ),
    );
  }
}

/** Pages 1 to `lastPage` the snapshot lacks, in one finding at `reference`; true when some are missing. */
function checkMissingPages(
  findings: Finding[],
  collection: string,
  pages: Map<number, PageTally>,
  numbers: readonly number[],
  reference: PageTally,
  lastPage: number,
): boolean {
  const missing: number[] = [];
  let present = 0;
  for (const n of numbers) if (n >= 1 && n <= lastPage) present += 1;
  const missingCount = lastPage - present;
  if (missingCount <= 0) return false;
  // Bounded by the pages present plus the few listed, whatever lastPage claims.
  for (let n = 1; n <= lastPage && missing.length < Math.min(missingCount, MISSING_PAGES_LISTED); n++) {
    if (!pages.has(n)) missing.push(n);
  }
  const more = missingCount - missing.length;
  findings.push(
    finding(
      reference.url,
      '/meta/pagination/pages',
      'pagination.pages',
      `${collection} says it has ${lastPage} pages but the snapshot lacks ${missingCount} of them ` +
        `(${noun(missingCount, 'page')} ${missing.join(', ')}${more > 0 ? ` and ${more} more` : ''}); ` +
        `crawl again, since their records are missing.`,
    ),
  );
  return true;
}

/** With every page present: the records its pages hold (each once) are as many as the collection counts. */
function checkRecordCount(
  findings: Finding[],
  collection: string,
  pages: Map<number, PageTally>,
  { lastPage, countReference, total }: PaginationReference,
  duplicates: number,
): void {
  if (total === null || countReference === undefined || lastPage === null) return;
  let records = 0;
  for (let n = 1; n <= lastPage; n++) records += pages.get(n)!.records;
  // A record listed twice stands in for one never seen: the pages hold fewer records than they count.
  const distinct = records - duplicates;
  if (distinct !== total) {
    findings.push(
      finding(
        countReference.tally.url,
        '/meta/pagination/count',
        'pagination.count',
        `${collection} says it has ${total} records but its ${plural(lastPage, 'page')} hold ` +
          `${distinct}${distinct === records ? '' : ` distinct ones (${records} listed)`}; clients reading ` +
          `meta.pagination.count will expect records that are not there (or miss some).`,
      ),
    );
  }
}

/**
 * spec 4.1 pages a collection: each record is on one page. A record listed twice (the collection changed while it
 * was crawled, or the source lists it in no stable order) stands in for one that none of the pages list. One finding
 * names the first; returns how many listings repeat a record listed before.
 */
function checkDuplicates(
  findings: Finding[],
  collection: string,
  pages: Map<number, PageTally>,
  numbers: number[],
): number {
  const firstPage = new Map<string, number>();
  let repeated = 0;
  let first: { key: string; page: number; again: number; url: string; index: number } | undefined;
  for (const n of numbers) {
    const tally = pages.get(n)!;
    for (const [index, key] of tally.ids.entries()) {
      const page = firstPage.get(key);
      if (page === undefined) {
        firstPage.set(key, n);
        continue;
      }
      repeated += 1;
      first ??= { key, page, again: n, url: tally.url, index };
    }
  }
  if (first === undefined) return 0;
  const [type, id] = first.key.split(KEY_SEPARATOR) as [string, string];
  const where =
    first.page === first.again ? `twice on page ${first.page}` : `on pages ${first.page} and ${first.again}`;
  const more = repeated - 1;
  findings.push(
    finding(
      first.url,
      `/data/${first.index}`,
      'pagination.duplicate',
      `${collection} lists ${type} ${id} ${where}` +
        `${more > 0 ? ` (and ${more} more ${noun(more, 'record')} more than once)` : ''}: the collection ` +
        `changed while it was crawled, or the source lists it in no stable order (an unordered queryset), so as ` +
        `many of its records are on none of its pages. Crawl again; if it persists, report it to the maintainers.`,
    ),
  );
  return repeated;
}
