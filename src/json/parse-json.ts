/**
 * JSON text to a value, for documents from a source and files of a snapshot: JSON.parse for nearly every text, the
 * exact path for a text that a round trip would change (scan.ts) or that gives a member name twice in one object,
 * and a refusal for a text nested so deep that the code after the parse could not walk it.
 */
import { parseExact, type DuplicateMember } from './exact-json.js';
import { scanJson } from './scan.js';

export { memberNames, sourceNumberText, stringifyJson, type DuplicateMember } from './exact-json.js';

/** The member names a parsed text gave twice in one object, by the value parseJson returned for it. */
const duplicated = new WeakMap<object, DuplicateMember[]>();

/**
 * How deep a document may nest. CV API documents nest fewer than 10 levels; a few hundred leaves any real JSON:API
 * document room, and keeps the recursive walks after the parse (validation, links, serialisation) far from the
 * stack's end.
 */
export const MAX_JSON_DEPTH = 256;

/** Thrown for a JSON text that nests deeper than MAX_JSON_DEPTH. */
export class JsonTooDeepError extends Error {
  constructor(readonly maxDepth: number) {
    super(`it nests objects and arrays more than ${maxDepth} levels deep`);
    this.name = 'JsonTooDeepError';
  }
}

/**
 * Parses `text` as JSON.parse does (throwing its SyntaxError for text that is not JSON), keeping what
 * `stringifyJson` needs to write the source's numbers and member order back unchanged. Throws JsonTooDeepError for
 * text nested deeper than `maxDepth`.
 */
export function parseJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  const scan = scanJson(text, maxDepth);
  if (scan.kind === 'too-deep') throw new JsonTooDeepError(maxDepth);
  const value: unknown = JSON.parse(text);
  // Fewer members than the text gives: a name given twice in one object, which the exact path finds.
  if (scan.kind === 'plain' && countMembers(value) === scan.members) return value;
  const exact = parseExact(text);
  if (exact.duplicates.length > 0 && typeof exact.value === 'object' && exact.value !== null) {
    duplicated.set(exact.value, exact.duplicates);
  }
  return exact.value;
}

/** The members of every object in `value`. Recursive: the depth is bounded by the scan. */
function countMembers(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += countMembers(item);
    return count;
  }
  for (const key in value) count += 1 + countMembers((value as Record<string, unknown>)[key]);
  return count;
}

/**
 * The member names that the text `value` was parsed from (by parseJson) gave more than once in one object: the
 * value holds the last of each, so a document written from it says less than its source did.
 */
export function duplicateMembers(value: unknown): readonly DuplicateMember[] {
  return (typeof value === 'object' && value !== null && duplicated.get(value)) || [];
}
