/**
 * The findings page (docs/catalogue.md): the snapshot's validation report (`_cv-snapshot/report.json`) for people,
 * grouped by rule, each finding's document linked to its record's page where the catalogue has one. It lists what
 * the report lists (at most `findingsListedPerRule` of each rule) and says how many more the report only counts.
 * The report is read from the staged tree, as `verify` reads it; everything in it is shown as text.
 */
import * as z from 'zod';
import { flatKey } from '../util/flat-key.js';
import { CATALOGUE_DIR, type Layout } from '../format/layout.js';
import { REPORT_PATH } from '../format/manifest.js';
import { readReportJson } from '../format/safe-read.js';
import { locate } from '../url/api-location.js';
import { RULES } from '../validate/rules.js';
import { badge, esc, page } from './html.js';
import { collectionPage } from '../format/catalogue-names.js';
import type { CatalogueRecords } from './records.js';
import { plural } from '../util/plural.js';

/** The findings page, beside the collection folders (whose names hold no dot). */
export const FINDINGS_PAGE = `${CATALOGUE_DIR}/findings.html`;

const count = z.number().int().nonnegative();
/** What the page needs of the report (docs/snapshot-format.md#report); anything else in it is ignored. */
const reportSchema = z.object({
  errors: count,
  warnings: count,
  rules: z.record(z.string(), z.object({ errors: count, warnings: count, omitted: count })),
  findingsListedPerRule: count,
  findings: z.array(
    z.object({
      url: z.string(),
      pointer: z.string(),
      rule: z.string(),
      severity: z.string(),
      message: z.string(),
    }),
  ),
});
type Report = z.infer<typeof reportSchema>;
type ListedFinding = Report['findings'][number];

export interface FindingsSite {
  dir: string;
  layout: Layout;
  records: CatalogueRecords;
  /** The collections the catalogue has pages for. */
  collections: ReadonlySet<string>;
  /** The site's title (`--names`), when the user gave one. */
  site?: string | undefined;
}

/** The report in the tree, or why it cannot be shown. */
function readReport(dir: string): Report | string {
  try {
    const result = reportSchema.safeParse(readReportJson(dir));
    return result.success ? result.data : `${REPORT_PATH} is not a report this version reads`;
  } catch (error) {
    // The reason, not the message: a message names the staging directory, which the page must not hold.
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
    return `${REPORT_PATH} cannot be read (${reason})`;
  }
}

/**
 * The catalogue page of each finding's document, from the findings page: a record, its relationship or related
 * documents → the record's page; a list page → its collection's first page; the root → the front page.
 */
function pagesOf(site: FindingsSite, findings: readonly ListedFinding[]): (url: string) => string | null {
  const where = new Map<string, string | null>();
  const wanted = new Map<string, string>();
  for (const { url } of findings) {
    if (where.has(url)) continue;
    let location;
    try {
      location = locate(url, site.layout.root);
    } catch {
      location = { kind: 'other' } as const;
    }
    if (location.kind === 'root') where.set(url, '../index.html');
    else if (location.kind === 'list' && site.collections.has(location.collection)) {
      where.set(url, collectionPage(location.collection, 1).slice(CATALOGUE_DIR.length + 1));
    } else if (location.kind === 'record' || location.kind === 'relationship' || location.kind === 'related') {
      wanted.set(url, flatKey(location.collection, location.id));
    }
    if (!wanted.has(url) && !where.has(url)) where.set(url, null);
  }
  const pages = site.records.pagesByCollectionAndId(new Set(wanted.values()));
  for (const [url, key] of wanted) {
    const file = pages.get(key);
    where.set(url, file === undefined ? null : file.slice(CATALOGUE_DIR.length + 1));
  }
  return (url) => where.get(url) ?? null;
}

function severityBadge(severity: string): string {
  return badge(severity, ['error', 'warning']);
}

/** What a rule checks, as a sentence ("A resource id is numeric text"), or null for a rule this version lacks. */
function ruleWords(rule: string): string | null {
  if (!Object.hasOwn(RULES, rule)) return null;
  const checks = RULES[rule as keyof typeof RULES].checks;
  return checks.charAt(0).toUpperCase() + checks.slice(1);
}

/** A rule in plain words with its code small beside them; a rule this version lacks, by its code. */
function ruleTitle(rule: string): string {
  const words = ruleWords(rule);
  const code = `<code class="rule-code">${esc(rule)}</code>`;
  return words === null ? `<code>${esc(rule)}</code>` : `${esc(words)} ${code}`;
}

/** One rule's section: what it checks, its counts, and its listed findings in the report's order. */
function ruleSection(n: number, rule: string, counts: Report['rules'][string], rows: string[], cap: number): string {
  const listed = rows.length;
  const omitted =
    counts.omitted > 0
      ? ` The first ${listed} are listed, as in the report (which lists at most ${cap} of each rule); ` +
        `${counts.omitted} more are only counted.`
      : '';
  return (
    `<h2 id="rule-${n}">${ruleTitle(rule)}</h2>\n` +
    `<p>${plural(counts.errors, 'error')}, ${plural(counts.warnings, 'warning')}.${omitted}</p>\n` +
    (listed === 0
      ? ''
      : '<div class="table-wrap"><table class="findings">\n' +
        '<colgroup><col class="severity"><col class="document"><col class="where"><col></colgroup>\n' +
        '<thead><tr><th scope="col">Severity</th>' +
        '<th scope="col">Document</th><th scope="col">Where in it</th><th scope="col">Message</th></tr></thead>\n' +
        `<tbody>\n${rows.join('')}</tbody>\n</table></div>\n`)
  );
}

/** A finding's message without its document's URL, which the row shows beside it already. */
function messageOf(finding: ListedFinding): string {
  if (finding.url === '' || !finding.message.includes(finding.url)) return finding.message;
  return finding.message.split(finding.url).join('this document');
}

function findingRow(finding: ListedFinding, pageOf: (url: string) => string | null): string {
  const target = pageOf(finding.url);
  const url = `<code>${esc(finding.url)}</code>`;
  const pointer =
    finding.pointer === '' ? '<span class="muted">the whole document</span>' : `<code>${esc(finding.pointer)}</code>`;
  return (
    `<tr><td>${severityBadge(finding.severity)}</td>` +
    `<td>${target === null ? url : `<a href="${esc(target)}">${url}</a>`}</td>` +
    `<td>${pointer}</td><td>${esc(messageOf(finding))}</td></tr>\n`
  );
}

/** The findings page's HTML. */
export function findingsHtml(site: FindingsSite): string {
  const report = readReport(site.dir);
  let body: string;
  if (typeof report === 'string') {
    body = `<p>The validation report cannot be shown: ${esc(report)}. Run <code>cv-snapshot verify</code>.</p>\n`;
  } else {
    const pageOf = pagesOf(site, report.findings);
    const rows = new Map<string, string[]>();
    for (const finding of report.findings) {
      let listed = rows.get(finding.rule);
      if (listed === undefined) rows.set(finding.rule, (listed = []));
      listed.push(findingRow(finding, pageOf));
    }
    const rules = Object.entries(report.rules);
    const index = rules.map(
      ([rule, counts], i) =>
        `<tr><td><a href="#rule-${i + 1}">${ruleTitle(rule)}</a></td>` +
        `<td>${counts.errors}</td><td>${counts.warnings}</td></tr>\n`,
    );
    body =
      `<p class="summary">${plural(report.errors, 'error')} and ${plural(report.warnings, 'warning')}, ` +
      `from the snapshot's validation report (<code>${REPORT_PATH}</code>), by rule. A document is linked to its ` +
      "record's page where this catalogue has one.</p>\n" +
      (rules.length === 0
        ? '<p>Validation found nothing to report.</p>\n'
        : '<div class="table-wrap"><table class="rules">\n<thead><tr><th scope="col">Rule</th>' +
          '<th scope="col">Errors</th><th scope="col">Warnings</th></tr></thead>\n' +
          `<tbody>\n${index.join('')}</tbody>\n</table></div>\n` +
          rules
            .map(([rule, counts], i) =>
              ruleSection(i + 1, rule, counts, rows.get(rule) ?? [], report.findingsListedPerRule),
            )
            .join(''));
  }
  return page({
    title: 'Validation findings',
    toCatalogue: '',
    toFront: '../index.html',
    crumbs: [],
    body,
    site: site.site,
  });
}
