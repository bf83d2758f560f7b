/**
 * What the crawl's report explains: a faithful mirror keeps the source's faults, so a finding the report recorded
 * (or of a rule it lists only in part) is the source's, and a link to a document the report names as dead or
 * unstorable may lead to no file.
 */
import { readReportJson } from '../format/safe-read.js';
import type { Finding } from '../validate/finding.js';

/** Crawl findings that name a URL the snapshot has no file for, on purpose. */
const UNSTORED_RULES = new Set([
  'link.dead',
  'link.redirect',
  'layout.refused',
  'layout.collision',
  'fetch.failed',
  'pagination.runaway',
  'pagination.unbounded',
  'scope.redirect',
]);

export const findingKey = (f: Pick<Finding, 'url' | 'pointer' | 'rule'>): string =>
  `${f.url}\u0000${f.pointer}\u0000${f.rule}`;

function isRecordedFinding(value: unknown): value is Finding {
  if (typeof value !== 'object' || value === null) return false;
  const f = value as Record<string, unknown>;
  return typeof f.url === 'string' && typeof f.pointer === 'string' && typeof f.rule === 'string';
}

/**
 * The findings the crawl recorded, and the rules whose findings the report lists only in part (it lists at most
 * `findingsListedPerRule` of each); none when the report cannot be read (then everything counts).
 */
function readRecorded(dir: string): { findings: Finding[]; partlyListed: Set<string> } {
  try {
    const report = readReportJson(dir) as {
      findings?: unknown;
      rules?: unknown;
    };
    const rules = typeof report?.rules === 'object' && report.rules !== null ? report.rules : {};
    const partlyListed = new Set(
      Object.entries(rules as Record<string, unknown>)
        .filter(([, counts]) => {
          const omitted = (counts as { omitted?: unknown } | null)?.omitted;
          return typeof omitted === 'number' && omitted > 0;
        })
        .map(([rule]) => rule),
    );
    const findings = Array.isArray(report?.findings) ? report.findings.filter(isRecordedFinding) : [];
    return { findings, partlyListed };
  } catch {
    return { findings: [], partlyListed: new Set() };
  }
}

export class RecordedFindings {
  readonly #keys: Set<string>;
  readonly #partlyListed: Set<string>;
  /** URLs the report names as having no file. */
  readonly #unstored: Set<string>;
  /** Whether a rule that names documents without a file is listed only in part. */
  readonly #unstoredPartlyListed: boolean;

  /** What the report of the snapshot in `dir` explains. */
  constructor(dir: string) {
    const recorded = readRecorded(dir);
    this.#keys = new Set(recorded.findings.map(findingKey));
    this.#partlyListed = recorded.partlyListed;
    this.#unstored = new Set(recorded.findings.filter((f) => UNSTORED_RULES.has(f.rule)).map((f) => f.url));
    this.#unstoredPartlyListed = [...recorded.partlyListed].some((rule) => UNSTORED_RULES.has(rule));
  }

  /**
   * Whether the report explains the finding. A rule the report lists only in part explains every finding of its
   * kind: the report cannot say which others there were.
   */
  explains(finding: Finding): boolean {
    return this.#keys.has(findingKey(finding)) || this.#partlyListed.has(finding.rule);
  }

  /**
   * Whether the report explains that the document at `url` has no file. For a rule that names documents the
   * snapshot has no file for and is listed only in part, that is every link to a missing file.
   */
  explainsMissing(url: string): boolean {
    return this.#unstoredPartlyListed || this.#unstored.has(url);
  }
}
