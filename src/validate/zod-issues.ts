/**
 * Turns zod issues into (path, problem) pairs a finding can carry: one per offending value, with a short clause
 * that reads after the value's name ("must be a string, not number"). Only failing documents come here.
 */
import type * as z from 'zod';

export interface Problem {
  path: PropertyKey[];
  /** A clause such as "is missing" or "must be an integer, not string". */
  detail: string;
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  array: 'an array',
  null: 'null',
  tuple: 'an array',
};

function describeExpected(expected: string): string {
  return ARTICLE[expected] ?? expected;
}

/** zod's message ends in "received <type>"; the issue itself no longer holds the input. */
function receivedOf(message: string): string | undefined {
  return /received (\S+)$/.exec(message)?.[1];
}

function unionTypes(errors: readonly (readonly z.core.$ZodIssue[])[]): string {
  const expected = new Set<string>();
  for (const branch of errors) {
    for (const issue of branch) {
      if (issue.path.length === 0 && issue.code === 'invalid_type') expected.add(describeExpected(issue.expected));
      if (issue.path.length === 0 && issue.code === 'invalid_value')
        expected.add(issue.values.map(String).join(' or '));
    }
  }
  const list = [...expected];
  if (list.length === 0) return 'does not match any allowed form';
  const last = list.pop();
  return `must be ${list.length === 0 ? last : `${list.join(', ')} or ${last}`}`;
}

function detailOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      const received = receivedOf(issue.message);
      if (received === 'undefined') return 'is missing';
      const expected = describeExpected(issue.expected);
      return received === undefined ? `must be ${expected}` : `must be ${expected}, not ${received}`;
    }
    case 'invalid_value':
      return `must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    case 'too_small':
      return `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}`;
    case 'custom':
      return issue.message;
    default:
      return issue.message.replace(/^Invalid input: /, '').replace(/^./, (c) => c.toLowerCase());
  }
}

/**
 * The problems behind `issues`, with paths prefixed by `base`. A union failure is explained by the one branch
 * whose top-level type matched (its issues lie deeper), because that is the form the author meant.
 */
export function problemsOf(issues: readonly z.core.$ZodIssue[], base: readonly PropertyKey[] = []): Problem[] {
  const problems: Problem[] = [];
  const visit = (list: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[]): void => {
    for (const issue of list) {
      const path = [...prefix, ...issue.path];
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) problems.push({ path: [...path, key], detail: 'is not allowed here' });
      } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
        const matched = issue.errors.filter((branch) => branch.every((i) => i.path.length > 0));
        const [branch] = matched;
        if (matched.length === 1 && branch !== undefined) visit(branch, path);
        else problems.push({ path, detail: unionTypes(issue.errors) });
      } else {
        problems.push({ path, detail: detailOf(issue) });
      }
    }
  };
  visit(issues, base);
  return problems;
}
