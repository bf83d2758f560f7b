/**
 * Map keys made of several strings (a type and an id, a rule and a target), for maps that live for a whole crawl.
 * The parts are joined by U+0000, which no JSON:API type or id can make ambiguous, and joined with `join`, so that
 * the key is one flat string: `a + sep + b` is a tree of concatenations that a map keeps as such, three or four
 * objects a key.
 */
export const KEY_SEPARATOR = '\u0000';

export function flatKey(...parts: string[]): string {
  return parts.join(KEY_SEPARATOR);
}
