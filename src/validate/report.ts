/**
 * The validation report (DESIGN.md §5): machine-readable for tools and CI, plus a few lines for people. Both are
 * deterministic: the same findings in any order give the same report and the same text.
 */
import type { Finding } from './finding.js';
import { compareFindings } from './rules.js';

export interface SeverityCounts {
  errors: number;
  warnings: number;
}

export interface ValidationReport {
  /** Findings by severity, over all rules. */
  errors: number;
  warnings: number;
  /** Findings by rule name (sorted), each split by severity. */
  rules: Record<string, SeverityCounts>;
  /** Resource types the spec does not describe (2.3, 2.4) → distinct resources of that type (sorted by type). */
  undescribedTypes: Record<string, number>;
  /** Every finding, sorted by url, pointer, rule. */
  findings: Finding[];
}

function byKey<T>(entries: Iterable<[string, T]>): Record<string, T> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Builds the report from every finding (per-document and cross-document) and the undescribed type counts that
 * `InvariantChecker.undescribedTypes()` gives.
 */
export function buildReport(
  findings: readonly Finding[],
  undescribedTypes: Readonly<Record<string, number>> = {},
): ValidationReport {
  const sorted = [...findings].sort(compareFindings);
  const rules = new Map<string, SeverityCounts>();
  let errors = 0;
  let warnings = 0;
  for (const { rule, severity } of sorted) {
    let counts = rules.get(rule);
    if (counts === undefined) rules.set(rule, (counts = { errors: 0, warnings: 0 }));
    if (severity === 'error') {
      errors += 1;
      counts.errors += 1;
    } else {
      warnings += 1;
      counts.warnings += 1;
    }
  }
  return {
    errors,
    warnings,
    rules: byKey(rules),
    undescribedTypes: byKey(Object.entries(undescribedTypes)),
    findings: sorted.map(({ url, pointer, rule, severity, message }) => ({ url, pointer, rule, severity, message })),
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export interface SummaryOptions {
  /** How many findings to list (errors first); default 10. */
  maxFindings?: number;
  /** How many undescribed type names to list; default 10. */
  maxTypes?: number;
}

/** A few lines for a terminal: totals, rules, undescribed types and the first findings (errors first). */
export function formatSummary(report: ValidationReport, options: SummaryOptions = {}): string {
  const maxFindings = options.maxFindings ?? 10;
  const maxTypes = options.maxTypes ?? 10;
  const lines = [`Validation: ${plural(report.errors, 'error')}, ${plural(report.warnings, 'warning')}.`];
  const rules = Object.entries(report.rules).map(([rule, counts]) => {
    const parts = [];
    if (counts.errors > 0) parts.push(plural(counts.errors, 'error'));
    if (counts.warnings > 0) parts.push(plural(counts.warnings, 'warning'));
    return `${rule} (${parts.join(', ')})`;
  });
  if (rules.length > 0) lines.push(`By rule: ${rules.join('; ')}.`);
  const types = Object.entries(report.undescribedTypes);
  if (types.length > 0) {
    const listed = types.slice(0, maxTypes).map(([type, n]) => `${type} (${n})`);
    if (types.length > maxTypes) listed.push(`${types.length - maxTypes} more`);
    lines.push(`${plural(types.length, 'type')} not described by the spec: ${listed.join(', ')}.`);
  }
  const shown = [
    ...report.findings.filter((f) => f.severity === 'error'),
    ...report.findings.filter((f) => f.severity === 'warning'),
  ].slice(0, maxFindings);
  for (const f of shown) {
    lines.push(`  ${f.severity} ${f.rule} ${f.url}${f.pointer === '' ? '' : ` ${f.pointer}`}: ${f.message}`);
  }
  const rest = report.findings.length - shown.length;
  if (rest > 0) lines.push(`  … and ${plural(rest, 'more finding')} in the report.`);
  return lines.join('\n');
}
