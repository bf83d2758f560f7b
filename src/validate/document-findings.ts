/**
 * What validating one document accumulates: its findings and the raw material of its summary. One instance per
 * document, filled in a single walk.
 */
import { isObject } from '../json/is-object.js';
import type * as z from 'zod';
import type { UrlSpace } from '../url/url-space.js';
import type { Finding } from './finding.js';
import { finding, jsonPointer, type RuleName } from './rules.js';
import { problemsOf } from './zod-issues.js';

export type JsonObject = Record<string, unknown>;

/** Why a rule matters and what to do, appended to every finding's message. */
const ADVICE: Partial<Record<RuleName, string>> = {
  'jsonapi.document': 'The source does not serve valid JSON:API 1.0 here; report it to the service maintainers.',
  'root.shape':
    'Check that the root URL points at a Controlled Vocabulary Service ' +
    '(spec 4: the root index maps collection names to URLs).',
  'list.shape': 'Spec 4.1 gives list pages links first/last/next/prev, data and meta.pagination.',
  'record.shape': 'Spec 4 gives a record address one resource object in data.',
  'relationship.shape': 'A relationship address answers resource linkage in data and its own links.self.',
  'related.shape': 'A related address answers a resource object, null, or an array of resource objects.',
  'cv.attributes':
    'The record differs from the attributes spec 2.3 gives its type; report it to the vocabulary maintainers.',
  'cv.relationships':
    'The record differs from the relationships spec 2.4 gives its type; report it to the vocabulary maintainers.',
};

export class DocumentFindings {
  readonly findings: Finding[] = [];
  readonly resources: Array<[string, string]> = [];
  readonly targets: Array<[string, string, string]> = [];
  readonly roots: Array<[string, string, string]> = [];

  constructor(
    /** Canonical URL of the document. */
    readonly url: string,
    /** Canonical root URL. */
    readonly root: string,
    /** Where the document's links are resolved and located. */
    readonly urls: UrlSpace,
  ) {}

  add(pointer: string, rule: RuleName, message: string, severity?: Finding['severity']): void {
    this.findings.push(finding(this.url, pointer, rule, message, severity));
  }

  /**
   * One finding per zod problem. `subject` names what was checked ("ActionCategory 7") and `base` is the pointer
   * of the parsed value; `ruleOf` can pick the rule from the problem's path below `base`.
   */
  addIssues(
    issues: readonly z.core.$ZodIssue[],
    base: readonly PropertyKey[],
    subject: string,
    ruleOf: (relative: readonly PropertyKey[]) => RuleName,
  ): void {
    for (const problem of problemsOf(issues)) {
      const rule = ruleOf(problem.path);
      const member = problem.path.length === 0 ? 'the document' : `\`${problem.path.map(String).join('/')}\``;
      const advice = ADVICE[rule];
      this.add(
        jsonPointer([...base, ...problem.path]),
        rule,
        `${subject}: ${member} ${problem.detail}.${advice === undefined ? '' : ` ${advice}`}`,
      );
    }
  }

  /**
   * Removes the findings from index `from` on that sit at or below one of `pointers`: they restate a JSON:API
   * problem already reported there.
   */
  dropRestated(from: number, pointers: readonly string[]): void {
    if (pointers.length === 0) return;
    const findings = this.findings;
    let kept = from;
    for (let i = from; i < findings.length; i++) {
      const f = findings[i]!;
      if (!pointers.some((p) => f.pointer === p || f.pointer.startsWith(`${p}/`))) findings[kept++] = f;
    }
    findings.length = kept;
  }

  /** A relationship target found at `pointer`; a `root` relationship names a community record's base term. */
  addTarget(relationship: string, linkage: unknown, pointer: string): void {
    if (!isObject(linkage)) return;
    const { type, id } = linkage;
    if (typeof type !== 'string' || typeof id !== 'string') return;
    (relationship === 'root' ? this.roots : this.targets).push([type, id, pointer]);
  }
}
