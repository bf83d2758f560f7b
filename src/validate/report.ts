/**
 * The validation report (docs/architecture.md#validation): machine-readable for tools and CI, plus a few lines for
 * people. Both are deterministic: the same findings in any order give the same report and the same text.
 */
import { printable } from '../util/safe-text.js';
import type { Finding } from './finding.js';
import { compareFindings } from './rules.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { plural } from '../util/plural.js';

/**
 * How many findings of one rule the report lists: the first ones in report order. A source can break one rule
 * millions of times (a document with millions of links outside the root); the counts stay exact, and the report
 * says how many findings of each rule it leaves out.
 */
const FINDINGS_LISTED_PER_RULE = 1000;

export interface SeverityCounts {
  errors: number;
  warnings: number;
}

export interface RuleCounts extends SeverityCounts {
  /** Findings of this rule that the report does not list (past `findingsListedPerRule`). */
  omitted: number;
}

export interface ValidationReport {
  /** Findings by severity, over all rules. */
  errors: number;
  warnings: number;
  /** Findings by rule name (sorted), each split by severity, with how many are not listed. */
  rules: Record<string, RuleCounts>;
  /** Resource types the spec does not describe (2.3, 2.4) → distinct resources of that type (sorted by type). */
  undescribedTypes: Record<string, number>;
  /** At most this many findings of each rule are listed. */
  findingsListedPerRule: number;
  /** Findings counted but not listed, over all rules. */
  findingsOmitted: number;
  /** The listed findings, sorted by url, pointer, rule. */
  findings: Finding[];
  /**
   * With `crawl --derive`: every sample that differed from its derivation, sorted by URL (the pointer of the first
   * difference, and the fetched and derived values there as JSON text, null where absent).
   */
  derive?: { mismatches: Array<{ url: string; pointer: string; fetched: string | null; derived: string | null }> };
}

function byKey<T>(entries: Iterable<[string, T]>): Record<string, T> {
  return Object.fromEntries([...entries].sort(([a], [b]) => byCodeUnits(a, b)));
}

/**
 * Counts findings and keeps, per rule, the first `listedPerRule` in report order, whatever order they come in:
 * memory stays bounded by the number of rules, and the report is the same for any order of the same findings.
 */
export class FindingTally {
  readonly #rules = new Map<string, SeverityCounts & { kept: Finding[] }>();
  errors = 0;
  warnings = 0;

  constructor(readonly listedPerRule = FINDINGS_LISTED_PER_RULE) {}

  add({ url, pointer, rule, severity, message }: Finding): void {
    let entry = this.#rules.get(rule);
    if (entry === undefined) this.#rules.set(rule, (entry = { errors: 0, warnings: 0, kept: [] }));
    if (severity === 'error') {
      this.errors += 1;
      entry.errors += 1;
    } else {
      this.warnings += 1;
      entry.warnings += 1;
    }
    entry.kept.push({ url, pointer, rule, severity, message });
    // Cut back now and then rather than on every finding: sorting twice the limit keeps the cost per finding low.
    if (entry.kept.length >= 2 * this.listedPerRule) this.#cut(entry.kept);
  }

  /**
   * Takes back findings of `url` that were added: `counts` of them by rule, as `countsByRule` gives them (a document
   * fetched again replaces what it reported). The ones listed go; one that a cut had left out is not listed again.
   */
  remove(url: string, counts: ReadonlyMap<string, SeverityCounts>): void {
    for (const [rule, { errors, warnings }] of counts) {
      const entry = this.#rules.get(rule);
      if (entry === undefined) continue;
      entry.errors -= errors;
      entry.warnings -= warnings;
      this.errors -= errors;
      this.warnings -= warnings;
      entry.kept = entry.kept.filter((finding) => finding.url !== url);
      if (entry.errors + entry.warnings === 0) this.#rules.delete(rule);
    }
  }

  #cut(kept: Finding[]): void {
    kept.sort(compareFindings);
    if (kept.length > this.listedPerRule) kept.length = this.listedPerRule;
  }

  /** The report of what was added so far, with the undescribed type counts of `InvariantChecker`. */
  report(undescribedTypes: Readonly<Record<string, number>> = {}): ValidationReport {
    const rules: Array<[string, RuleCounts]> = [];
    const findings: Finding[] = [];
    let omitted = 0;
    for (const [rule, { errors, warnings, kept }] of this.#rules) {
      this.#cut(kept);
      findings.push(...kept);
      rules.push([rule, { errors, warnings, omitted: errors + warnings - kept.length }]);
      omitted += errors + warnings - kept.length;
    }
    return {
      errors: this.errors,
      warnings: this.warnings,
      rules: byKey(rules),
      undescribedTypes: byKey(Object.entries(undescribedTypes)),
      findingsListedPerRule: this.listedPerRule,
      findingsOmitted: omitted,
      findings: findings.sort(compareFindings),
    };
  }
}

/**
 * Builds the report from every finding (per-document and cross-document) and the undescribed type counts that
 * `InvariantChecker.undescribedTypes()` gives.
 */
export function buildReport(
  findings: readonly Finding[],
  undescribedTypes: Readonly<Record<string, number>> = {},
  listedPerRule = FINDINGS_LISTED_PER_RULE,
): ValidationReport {
  const tally = new FindingTally(listedPerRule);
  for (const finding of findings) tally.add(finding);
  return tally.report(undescribedTypes);
}

/** `findings` counted by rule and severity: what `FindingTally.remove` takes back. */
export function countsByRule(findings: Iterable<Finding>): Map<string, SeverityCounts> {
  const counts = new Map<string, SeverityCounts>();
  for (const { rule, severity } of findings) {
    let count = counts.get(rule);
    if (count === undefined) counts.set(rule, (count = { errors: 0, warnings: 0 }));
    if (severity === 'error') count.errors += 1;
    else count.warnings += 1;
  }
  return counts;
}

/** Findings per piece of `reportJson`: a few hundred kilobytes, written at once. */
const FINDINGS_PER_PIECE = 500;

/**
 * report.json as `JSON.stringify(report, null, 2)` and a newline would give it, in pieces: the report is written
 * as a stream, never held as one string.
 */
export function* reportJson(report: ValidationReport): Generator<string> {
  const { findings, ...head } = report;
  const headText = JSON.stringify({ ...head, findings: [] }, null, 2);
  if (findings.length === 0) {
    yield `${headText}\n`;
    return;
  }
  yield `${headText.slice(0, headText.lastIndexOf('[]'))}[\n`;
  for (let start = 0; start < findings.length; start += FINDINGS_PER_PIECE) {
    const piece = findings.slice(start, start + FINDINGS_PER_PIECE).map((finding, i) => {
      const last = start + i === findings.length - 1;
      return `    ${JSON.stringify(finding, null, 2).replace(/\n/g, '\n    ')}${last ? '' : ','}\n`;
    });
    yield piece.join('');
  }
  yield '  ]\n}\n';
}

export interface SummaryOptions {
  /** How many findings to list (errors first); default 10. */
  maxFindings?: number;
  /** How many undescribed type names to list; default 10. */
  maxTypes?: number;
}

/**
 * A few lines for a terminal: totals, rules, undescribed types and the first findings (errors first). Findings
 * quote the source, so what they say is made safe to print.
 */
export function formatSummary(report: ValidationReport, options: SummaryOptions = {}): string {
  const maxFindings = options.maxFindings ?? 10;
  const maxTypes = options.maxTypes ?? 10;
  const lines = [`Validation: ${plural(report.errors, 'error')}, ${plural(report.warnings, 'warning')}.`];
  const rules = Object.entries(report.rules).map(([rule, counts]) => {
    const parts = [];
    if (counts.errors > 0) parts.push(plural(counts.errors, 'error'));
    if (counts.warnings > 0) parts.push(plural(counts.warnings, 'warning'));
    if (counts.omitted > 0) parts.push(`${counts.omitted} not listed`);
    return `${rule} (${parts.join(', ')})`;
  });
  if (rules.length > 0) lines.push(`By rule: ${rules.join('; ')}.`);
  const types = Object.entries(report.undescribedTypes);
  if (types.length > 0) {
    const listed = types.slice(0, maxTypes).map(([type, n]) => `${type} (${n})`);
    if (types.length > maxTypes) listed.push(`${types.length - maxTypes} more`);
    // Information, not a fault: these types are checked as JSON:API resources, without a table of their fields.
    lines.push(
      printable(
        `Checked as generic resources, since the API contract tabulates no fields for them: ` +
          `${plural(types.length, 'type')}, ${listed.join(', ')}.`,
      ),
    );
  }
  const shown = [
    ...report.findings.filter((f) => f.severity === 'error'),
    ...report.findings.filter((f) => f.severity === 'warning'),
  ].slice(0, maxFindings);
  for (const f of shown) {
    const where = f.pointer === '' ? f.url : `${f.url} ${f.pointer}`;
    lines.push(printable(`  ${f.severity} ${f.rule} ${where}: ${f.message}`, 400));
  }
  const rest = report.errors + report.warnings - shown.length;
  if (rest > 0) {
    const listing = report.findingsOmitted > 0 ? ` (which lists at most ${report.findingsListedPerRule} per rule)` : '';
    lines.push(`  … and ${plural(rest, 'more finding')} in the report${listing}.`);
  }
  return lines.join('\n');
}
