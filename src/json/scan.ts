/**
 * One quick pass over a JSON text before it is parsed, to learn two things JSON.parse does not say:
 *
 * - how deep it nests. V8 parses a document nested 100,000 deep, but everything after it that walks the value
 *   recursively (validation, link walking, JSON.stringify) would overflow the stack on it;
 * - whether a parse and serialisation round trip would change it: a number whose text is not the one JavaScript
 *   writes for its value (`1e400` becomes null, `18446744073709551617` loses digits, `1.0` becomes `1`), or a member
 *   name that is an array index (V8 moves those to the front of the object). Such a text takes the exact path
 *   (exact-json.ts), which keeps both;
 * - how many members its objects hold in all, so that a parse that kept fewer (a name given twice in one object,
 *   of which JSON.parse keeps one value) is noticed (parse-json.ts).
 *
 * Nearly every document holds only strings and small integers: strings are skipped with indexOf, and a number is
 * looked at closely only when it has a sign, a fraction, an exponent or more than 15 digits. The text is assumed to
 * be JSON; whatever this pass makes of text that is not, JSON.parse rejects it afterwards.
 */

export interface JsonScan {
  kind: 'plain' | 'exact' | 'too-deep';
  /** Members of all the objects of the text (before `too-deep`, of those read so far). */
  members: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const COLON = 0x3a;

/** Integers of up to 15 digits are exact in a double and written back as they came. */
const SAFE_DIGITS = 15;
/** V8 orders member names that are array indexes (0 to 2^32 - 2) before all others. */
const MAX_ARRAY_INDEX = 4294967294;

/** Whether the quote at `at` is escaped: preceded by an odd number of backslashes. */
function escapedQuote(text: string, at: number): boolean {
  let slashes = 0;
  for (let i = at - 1; text.charCodeAt(i) === BACKSLASH; i -= 1) slashes += 1;
  return slashes % 2 === 1;
}

/** Whether `text` from `start` to `end` (exclusive) is an array index, such as `0` or `42`, but not `007`. */
function isArrayIndex(text: string, start: number, end: number): boolean {
  if (end === start || end - start > 10) return false;
  if (text.charCodeAt(start) === DIGIT_0 && end - start > 1) return false;
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c < DIGIT_0 || c > DIGIT_9) return false;
  }
  return Number(text.slice(start, end)) <= MAX_ARRAY_INDEX;
}

/** The first character after `at` that is not JSON whitespace. */
function nextToken(text: string, at: number): number {
  let i = at;
  for (let c = text.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(i)) i += 1;
  return text.charCodeAt(i);
}

/** Whether the number token `token` is written back by JSON.stringify as it is. */
function numberSurvives(token: string): boolean {
  return String(Number(token)) === token;
}

/** Says whether `text` nests deeper than `maxDepth`, needs the exact path, or parses plainly. */
export function scanJson(text: string, maxDepth: number): JsonScan {
  const length = text.length;
  let depth = 0;
  let exact = false;
  let members = 0;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escapedQuote(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return { kind: exact ? 'exact' : 'plain', members };
      const first = text.charCodeAt(i + 1);
      // A member name that is an array index (cheap test first: it starts with a digit).
      if (!exact && first >= DIGIT_0 && first <= DIGIT_9 && isArrayIndex(text, i + 1, end)) {
        exact = nextToken(text, end + 1) === COLON;
      }
      i = end + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth += 1;
      if (depth > maxDepth) return { kind: 'too-deep', members };
      i += 1;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth -= 1;
      i += 1;
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      let end = i + 1;
      let plainInteger = c !== MINUS;
      for (; end < length; end += 1) {
        const d = text.charCodeAt(end);
        if (d >= DIGIT_0 && d <= DIGIT_9) continue;
        // A fraction, an exponent or its sign.
        if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === MINUS) plainInteger = false;
        else break;
      }
      if (!exact && !(plainInteger && end - i <= SAFE_DIGITS) && !numberSurvives(text.slice(i, end))) exact = true;
      i = end;
    } else {
      // Outside strings, a colon separates a member's name from its value.
      if (c === COLON) members += 1;
      i += 1;
    }
  }
  return { kind: exact ? 'exact' : 'plain', members };
}
