/**
 * JSON text to a value, for documents from a source and files of a snapshot: JSON.parse for nearly every text, the
 * exact path for a text that a round trip would change (scan.ts), and a refusal for a text nested so deep that the
 * code after the parse could not walk it.
 */
import { parseExact } from './exact-json.js';
import { scanJson } from './scan.js';

export { memberNames, sourceNumberText, stringifyJson } from './exact-json.js';

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
  if (scan === 'too-deep') throw new JsonTooDeepError(maxDepth);
  const value: unknown = JSON.parse(text);
  return scan === 'exact' ? parseExact(text) : value;
}
