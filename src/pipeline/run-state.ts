/**
 * What a crawl has done so far, built from journal entries only: the same code path serves a live crawl (each
 * entry as it happens) and `--resume` (every entry of the journal replayed). Holds compact figures, never documents.
 */
import { UrlSet } from '../url/url-set.js';
import { UrlSpace } from '../url/url-space.js';
import type { Finding } from '../validate/finding.js';
import type { InvariantChecker } from '../validate/invariants.js';
import { countsByRule, FindingTally, type SeverityCounts, type ValidationReport } from '../validate/report.js';
import type { JournalEntry, JournalSource } from '../store/journal.js';
import type { ApiLocation } from '../url/api-location.js';
import type { CollectionCounts } from '../format/manifest.js';
import type { TreeWriter } from '../store/writer.js';

const NO_FINDINGS: readonly Finding[] = [];

export class RunState {
  readonly collections = new Map<string, CollectionCounts>();
  /** Page files of each collection, by page number. */
  readonly pageFiles = new Map<string, Map<number, string>>();
  /**
   * The files of the relationship documents stored with `data: null`: finalize's reader answers for these
   * relationships from here instead of reading each document again (most links-only relationships lead nowhere).
   */
  readonly leadingNowhere = new Set<string>();
  /** Findings counted, and the ones the report lists: bounded, however many findings a crawl makes. */
  readonly #tally = new FindingTally();
  /**
   * Findings of URLs whose journal entry has not come yet, by URL and key. A URL's findings are journaled just
   * before its entry, so this holds the findings of the document in hand (and, in a replay, of the documents an
   * interruption cut short, which are fetched again and report again).
   */
  readonly #staged = new Map<string, Map<string, Finding>>();
  documents = 0;
  source: JournalSource = { etag: null, lastModified: null };
  /** URLs known to the crawl: the root and every link it discovered (for the progress line). */
  discovered = 1;
  /** URLs that could not be fetched (`--allow-partial`) and have not been settled since: few, so kept as a set. */
  readonly #failed = new Set<string>();
  /**
   * URLs held back because they go past what their list's first page announced (`pagination.unbounded`), with the
   * finding, until they are fetched after all (a collection that grew while it was crawled, fetched again): a
   * bounded few, so kept as they are.
   */
  readonly #heldBack = new Map<string, Finding>();
  /**
   * Collections whose pages disagreed every time they were fetched, published as fetched (`--allow-partial`), sorted:
   * the snapshot is partial, as when documents are missing.
   */
  shifted: string[] = [];
  /** Records of each list page stored, by URL: a page stored again replaces its count. */
  readonly #listRecords = new Map<string, number>();
  /**
   * The findings each stored list page reported, counted by rule, by URL (pages without findings have none here): a
   * page fetched again, because its collection shifted, replaces them, in a live crawl and in a replay alike.
   */
  readonly #pageFindings = new Map<string, Map<string, SeverityCounts>>();
  /**
   * Every URL known and every URL settled: kept only while a journal is replayed for --resume, to tell the
   * continued crawl where to start. A live crawl does not need them (the crawler has its own set of URLs seen).
   */
  #resume: { seen: UrlSet; settled: UrlSet } | undefined;

  readonly #urls: UrlSpace;

  constructor(
    private readonly root: string,
    private readonly invariants: InvariantChecker,
    private readonly writer: TreeWriter,
    options: { resuming: boolean; urls?: UrlSpace },
  ) {
    this.#urls = options.urls ?? new UrlSpace(root);
    if (options.resuming) this.#resume = { seen: new UrlSet(root, [root]), settled: new UrlSet(root) };
  }

  /** Validation errors counted so far (for the progress line). */
  get errors(): number {
    return this.#tally.errors;
  }

  addFinding(finding: Finding): void {
    if (finding.rule === 'pagination.unbounded') {
      this.#heldBack.set(finding.url, finding);
      return;
    }
    if (finding.rule === 'fetch.failed') this.#failed.add(finding.url);
    let staged = this.#staged.get(finding.url);
    if (staged === undefined) this.#staged.set(finding.url, (staged = new Map<string, Finding>()));
    // A document fetched again after an interruption reports its findings again.
    const key = `${finding.pointer}\u0000${finding.rule}\u0000${finding.message}`;
    if (!staged.has(key)) staged.set(key, finding);
    // A failure ends its URL for this run (nothing else is journaled for it); a replayed one is fetched again.
    if (finding.rule === 'fetch.failed' && this.#resume === undefined) this.#commit(finding.url, true);
  }

  /**
   * Counts the staged findings of `url`; those of an earlier failure only when it was not settled since. Returns
   * the findings counted.
   */
  #commit(url: string, failed: boolean): readonly Finding[] {
    const staged = this.#staged.get(url);
    if (staged === undefined) return NO_FINDINGS;
    this.#staged.delete(url);
    const counted = [...staged.values()].filter((finding) => failed || finding.rule !== 'fetch.failed');
    for (const finding of counted) this.#tally.add(finding);
    return counted;
  }

  /** The report of every finding (the crawl is over: findings still staged are counted too). */
  report(undescribedTypes: Readonly<Record<string, number>>): ValidationReport {
    for (const url of [...this.#staged.keys()]) this.#commit(url, this.#failed.has(url));
    for (const finding of this.#heldBack.values()) this.#tally.add(finding);
    return this.#tally.report(undescribedTypes);
  }

  /** Counts a journal entry; `location` is where its URL sits in the API, when the caller knows it. */
  apply(entry: JournalEntry, location?: ApiLocation): void {
    if (entry.t === 'finding') {
      this.addFinding(entry.finding);
      return;
    }
    this.#failed.delete(entry.url);
    this.#heldBack.delete(entry.url);
    // A list page fetched again, because its collection shifted while it was crawled, replaces what it reported.
    const earlier = entry.t === 'doc' ? this.#pageFindings.get(entry.url) : undefined;
    if (earlier !== undefined) {
      this.#tally.remove(entry.url, earlier);
      this.#pageFindings.delete(entry.url);
    }
    const findings = this.#commit(entry.url, false);
    this.discovered += entry.discovered.length;
    if (this.#resume !== undefined) {
      const { seen, settled } = this.#resume;
      settled.add(entry.url);
      seen.add(entry.url);
      for (const url of entry.discovered) seen.add(url);
    }
    if (entry.t === 'settled') return;

    // A list page fetched again, because its collection shifted while it was crawled, replaces what it held.
    const before = this.#listRecords.get(entry.url);
    if (before === undefined) this.documents += 1;
    if (entry.source) this.source = entry.source;
    if (entry.file === null) return;
    if (entry.leadsNowhere === true) this.leadingNowhere.add(entry.file.path);
    else this.leadingNowhere.delete(entry.file.path);
    // Only a stored document counts for the cross-document checks, as verify counts the files.
    // Journal entries name canonical URLs: the crawl records nothing else.
    this.invariants.add(entry.url, entry.summary, entry.url);
    // A replayed document's file was written by an earlier run; a live crawl's writer listed its file as it wrote it.
    if (this.#resume !== undefined) this.writer.record(entry.file.path, entry.file.sha256);
    location ??= this.#urls.locate(entry.url);
    if (location.kind === 'root' || location.kind === 'other') return;
    const counts = this.collections.get(location.collection) ?? { records: 0, pages: 0, documents: 0 };
    if (before === undefined) counts.documents += 1;
    if (location.kind === 'list') {
      if (before === undefined) counts.pages += 1;
      counts.records += (entry.records ?? 0) - (before ?? 0);
      this.#listRecords.set(entry.url, entry.records ?? 0);
      if (findings.length > 0) this.#pageFindings.set(entry.url, countsByRule(findings));
      const pages = this.pageFiles.get(location.collection) ?? new Map<number, string>();
      pages.set(location.page, entry.file.path);
      this.pageFiles.set(location.collection, pages);
    }
    this.collections.set(location.collection, counts);
  }

  /**
   * URLs that could not be fetched (`--allow-partial`) or were held back past what their list's first page
   * announced, and were not fetched later either, sorted.
   */
  missing(): string[] {
    return [...new Set([...this.#failed, ...this.#heldBack.keys()])].sort();
  }

  /** The findings of the URLs held back past what their list's first page announced, and not fetched since. */
  heldBack(): Finding[] {
    return [...this.#heldBack.values()];
  }

  /**
   * After a replay: the URLs the journal knows, and those of them still to fetch (sorted). The sets are handed over
   * and no longer kept here.
   */
  takeResume(): { seen: UrlSet; pending: string[] } {
    if (this.#resume === undefined) throw new Error('takeResume() needs a RunState made with resuming: true.');
    const { seen, settled } = this.#resume;
    this.#resume = undefined;
    // Findings of URLs that never settled: those URLs are fetched again, and report again.
    this.#staged.clear();
    this.discovered = seen.size;
    return { seen, pending: [...seen].filter((url) => !settled.has(url)).sort() };
  }
}
