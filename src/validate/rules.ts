/**
 * The validation rules (docs/architecture.md#validation) by their stable names, and the helpers every check uses to
 * report against them. Rule names are part of the report's contract: tools filter on them, so a name never changes
 * meaning.
 */
import { byCodeUnits } from '../util/code-unit-order.js';

/**
 * One thing validation (or the crawl) noticed about one document; see docs/architecture.md#validation. Declared here,
 * beside the rule names it refers to (finding.ts re-exports it), so that rules.ts imports nothing that imports it.
 */
export interface Finding {
  /** Canonical URL of the document. */
  url: string;
  /** JSON pointer (RFC 6901) into the document; '' for the whole document. */
  pointer: string;
  /** Stable rule name, such as `pagination.count`: one of the names registered below. */
  rule: RuleName;
  severity: 'error' | 'warning';
  message: string;
}

type Severity = Finding['severity'];

/** Each rule with the severity it normally reports at and what it checks; `root.collections` also warns. */
export const RULES = {
  'jsonapi.document': { severity: 'error', checks: 'the document is a JSON:API 1.0 document' },
  'root.shape': { severity: 'error', checks: 'the root index is `{data: {<collection>: <URL>}}` (spec 4)' },
  'root.links': { severity: 'error', checks: 'each root index URL addresses the list of the collection it names' },
  'root.collections': { severity: 'error', checks: 'the root index lists every collection of spec 2.2' },
  'list.shape': { severity: 'error', checks: 'a list page has the links, data and meta of spec 4.1' },
  'record.shape': { severity: 'error', checks: 'a record document holds one resource object (spec 4)' },
  'relationship.shape': { severity: 'error', checks: 'a relationship document holds linkage and links.self' },
  'related.shape': { severity: 'error', checks: 'a related document holds a resource, null or a resource array' },
  'cv.attributes': { severity: 'error', checks: 'a tabulated type has exactly the attributes of spec 2.3' },
  'cv.relationships': { severity: 'error', checks: 'a tabulated type has exactly the relationships of spec 2.4' },
  'cv.status': { severity: 'warning', checks: 'status is one of the observed values (spec 3)' },
  'cv.format': { severity: 'warning', checks: 'URI, URL and e-mail attributes hold what their name says' },
  'resource.id': { severity: 'warning', checks: 'a resource id is numeric text (spec 2.1)' },
  'record.self': { severity: 'error', checks: "a resource's links.self names its own collection and id" },
  'record.id': { severity: 'error', checks: "a record document's data.id is the id in its URL" },
  'relationship.count': { severity: 'error', checks: 'a to-many meta.count equals the length of data (spec 2.4)' },
  'pagination.page': { severity: 'error', checks: 'meta.pagination.page is the page number in the URL' },
  'pagination.links': { severity: 'error', checks: 'first/last/next/prev address the right pages' },
  'pagination.count': { severity: 'error', checks: 'meta.pagination.count equals the records over all pages' },
  'pagination.pages': { severity: 'error', checks: 'meta.pagination.pages equals the pages found' },
  'pagination.next': { severity: 'error', checks: 'links.next is null exactly on the last page' },
  'pagination.prev': { severity: 'error', checks: 'links.prev is null exactly on the first page' },
  'pagination.duplicate': { severity: 'error', checks: 'no record is listed twice in the pages of one collection' },
  'reference.target': { severity: 'error', checks: 'every relationship target is in the snapshot' },
  'community.root': { severity: 'error', checks: "every community record's root is in the snapshot" },
  // What the crawl itself notices, as it fetches and stores.
  'json.duplicate': {
    severity: 'error',
    checks: 'no object gives a member name twice (the snapshot can keep only the last value)',
  },
  'json.encoding': {
    severity: 'warning',
    checks: 'the body is UTF-8 without a byte order mark (the snapshot stores the same text in UTF-8)',
  },
  'fetch.failed': { severity: 'error', checks: 'the document could be fetched (recorded with --allow-partial)' },
  'link.invalid': { severity: 'warning', checks: 'a link is a usable http(s) URL' },
  'link.dead': { severity: 'error', checks: 'a link in scope does not answer 404 or 410' },
  'link.redirect': { severity: 'warning', checks: 'a link in scope does not redirect' },
  'scope.outside': { severity: 'warning', checks: 'a link stays below the root URL' },
  'scope.redirect': { severity: 'error', checks: 'a redirect stays below the root URL and can be followed' },
  'pagination.runaway': { severity: 'error', checks: 'no page links past the pages its list declares' },
  'pagination.unbounded': {
    severity: 'error',
    checks: "a list's later pages announce no more pages than its first (recorded with --allow-partial)",
  },
  'pagination.shifted': {
    severity: 'error',
    checks: "a collection's pages agree when fetched again (recorded with --allow-partial)",
  },
  'layout.refused': { severity: 'error', checks: 'the URL can be stored as a file of the snapshot' },
  'layout.collision': { severity: 'error', checks: 'no two URLs are stored in one file' },
} as const satisfies Record<string, { severity: Severity; checks: string }>;

export type RuleName = keyof typeof RULES;

/** Every registered rule name: what a report, a journal or a diff may name. */
export const RULE_NAMES = Object.keys(RULES) as [RuleName, ...RuleName[]];

/** A finding at the rule's usual severity (or the one given). */
export function finding(url: string, pointer: string, rule: RuleName, message: string, severity?: Severity): Finding {
  return { url, pointer, rule, severity: severity ?? RULES[rule].severity, message };
}

/** RFC 6901 JSON pointer for a path of member names and array indexes. */
export function jsonPointer(path: readonly PropertyKey[]): string {
  let pointer = '';
  for (const segment of path) pointer += `/${escapePointerSegment(String(segment))}`;
  return pointer;
}

export function escapePointerSegment(segment: string): string {
  return segment.includes('~') || segment.includes('/') ? segment.replace(/~/g, '~0').replace(/\//g, '~1') : segment;
}

/** The one order findings are reported in: url, pointer, rule, then severity and message so ties are stable too. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    byCodeUnits(a.url, b.url) ||
    byCodeUnits(a.pointer, b.pointer) ||
    byCodeUnits(a.rule, b.rule) ||
    byCodeUnits(a.severity, b.severity) ||
    byCodeUnits(a.message, b.message)
  );
}

export function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort(compareFindings);
}
