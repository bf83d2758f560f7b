/**
 * The validation findings of a verify run, taken as they come rather than kept: counted and listed per rule as the
 * crawl's report lists them (FindingTally), and each error told apart: one the report explains (the source's fault,
 * mirrored), one in a document changed after the crawl (the change's: its problem is that it was changed), or one
 * nothing explains (a problem). Memory follows the number of rules, not of findings; what is kept beyond that is the
 * keys of list pages' findings, which a complete collection's findings are checked against (`addPlaced`).
 */
import type { Finding } from '../validate/finding.js';
import { FindingTally } from '../validate/report.js';
import type { Problems } from './problems.js';
import { findingKey, type RecordedFindings } from './recorded-findings.js';

/** Unexplained validation errors listed one by one; the rest are counted. */
const LISTED_ERRORS = 20;

export class VerifyFindings {
  /** Validation errors that the crawl recorded in the report. */
  recordedErrors = 0;
  readonly #tally = new FindingTally();
  readonly #listPageKeys = new Set<string>();
  /** The first unexplained errors, in the order found, and how many there are. */
  readonly #unexplained: Finding[] = [];
  #unexplainedCount = 0;
  #leftOut = 0;

  constructor(
    private readonly recorded: RecordedFindings,
    /** URLs of documents changed after the crawl: a document's is known before its findings come. */
    private readonly changed: ReadonlySet<string>,
  ) {}

  /** The findings of one document; `listPage`: a page of a collection's list. */
  addDocument(findings: readonly Finding[], listPage: boolean): void {
    for (const finding of findings) {
      if (listPage) this.#listPageKeys.add(findingKey(finding));
      this.#add(finding);
    }
  }

  /**
   * A complete collection's findings, placed on the pages where the crawl saw them (CollectionRecords): they are its
   * pages' findings, moved, so each counts once.
   */
  addPlaced(findings: Iterable<Finding>): void {
    for (const finding of findings) if (!this.#listPageKeys.has(findingKey(finding))) this.#add(finding);
  }

  /**
   * Findings across documents (InvariantChecker), once every document has been read. `asCrawled`: every document was
   * read, unchanged since the crawl. When one was not, an error that the report does not explain is what that did,
   * not the source's: it is counted in `leftOut`, not listed.
   */
  addAcross(findings: Iterable<Finding>, asCrawled: boolean): void {
    for (const finding of findings) this.#add(finding, asCrawled);
  }

  /** Errors across documents that nothing explains, left out because a document was not read as the crawl wrote it. */
  get leftOut(): number {
    return this.#leftOut;
  }

  #add(finding: Finding, blamable = true): void {
    this.#tally.add(finding);
    if (finding.severity !== 'error') return;
    if (this.recorded.explains(finding)) {
      this.recordedErrors += 1;
      return;
    }
    if (this.changed.has(finding.url)) return;
    if (!blamable) {
      this.#leftOut += 1;
      return;
    }
    this.#unexplainedCount += 1;
    if (this.#unexplained.length < LISTED_ERRORS) this.#unexplained.push(finding);
  }

  /** The unexplained errors as problems: the first `LISTED_ERRORS`, then how many more. */
  reportProblems(problems: Problems): void {
    for (const { url, pointer, rule, message } of this.#unexplained) {
      problems.add(`${url}${pointer ? ` at ${pointer}` : ''} breaks ${rule}: ${message}`);
    }
    if (this.#unexplainedCount > LISTED_ERRORS) {
      problems.add(`… and ${this.#unexplainedCount - LISTED_ERRORS} more validation errors.`);
    }
  }

  /** The findings listed (at most the report's number per rule, sorted as the report sorts them), and the rest. */
  listed(): { findings: Finding[]; omitted: number } {
    const report = this.#tally.report();
    return { findings: report.findings, omitted: report.findingsOmitted };
  }
}
