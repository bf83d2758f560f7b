/**
 * The records of a stored list document, each tied to the exact bytes the snapshot holds for it, and answers written
 * from those bytes. `serve` parses records to filter, sort and include, but never writes them back from the parsed
 * values: a JavaScript number would turn 18446744073709551617 into 18446744073709552000 and 1e400 into null, and a
 * record nested deeper than JSON.stringify can recurse would fail the answer. The parsed values only choose and
 * order the records; the answer holds the stored bytes. For a snapshot's ordinary documents (written with
 * JSON.stringify, then htmlSafeJson) the output is byte for byte what those two give.
 *
 * Scanning needs no recursion: it counts brackets outside strings, so no nesting depth can overflow it. The bytes it
 * looks for (quotes, brackets, commas, colons) never occur inside a multi-byte UTF-8 character.
 */

import { htmlSafeJson } from '../json/html-safe.js';

/** Stored bytes of records read through `storedList`; a record not found here is written with JSON.stringify. */
const storedBytes = new WeakMap<object, Buffer>();

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(body: Buffer, at: number): number {
  while (isSpace(body[at])) at += 1;
  return at;
}

/** Whether a byte ends a number, `true`, `false` or `null`. */
function endsLiteral(byte: number | undefined): boolean {
  return byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isSpace(byte);
}

/** The index after the string that starts at `at` (a quote). */
function stringEnd(body: Buffer, at: number): number {
  for (let i = at + 1; i < body.length; i += 1) {
    if (body[i] === BACKSLASH) i += 1;
    else if (body[i] === QUOTE) return i + 1;
  }
  return body.length;
}

/** The index after the JSON value that starts at `at`. */
function valueEnd(body: Buffer, at: number): number {
  const first = body[at];
  if (first === QUOTE) return stringEnd(body, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    let i = at;
    while (i < body.length && !endsLiteral(body[i])) i += 1;
    return i;
  }
  let depth = 0;
  for (let i = at; i < body.length;) {
    const byte = body[i];
    if (byte === QUOTE) {
      i = stringEnd(body, i);
      continue;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth += 1;
    else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth -= 1;
    i += 1;
    if (depth === 0) return i;
  }
  return body.length;
}

/** [start, end) of each element of the array that starts at `at`; null when it is not well formed. */
function elements(body: Buffer, at: number): Array<[number, number]> | null {
  const ranges: Array<[number, number]> = [];
  let i = skipSpace(body, at + 1);
  if (body[i] === CLOSE_BRACKET) return ranges;
  while (i < body.length) {
    const end = valueEnd(body, i);
    ranges.push([i, end]);
    i = skipSpace(body, end);
    if (body[i] === CLOSE_BRACKET) return ranges;
    if (body[i] !== COMMA) return null;
    i = skipSpace(body, i + 1);
  }
  return null;
}

/** The element ranges of the top-level `data` array (the last one, as JSON.parse keeps), or null. */
function dataRanges(body: Buffer): Array<[number, number]> | null {
  let i = skipSpace(body, 0);
  if (body[i] !== OPEN_BRACE) return null;
  i = skipSpace(body, i + 1);
  let found: Array<[number, number]> | null = null;
  while (body[i] === QUOTE) {
    const keyEnd = stringEnd(body, i);
    const key: unknown = JSON.parse(body.toString('utf8', i, keyEnd));
    i = skipSpace(body, keyEnd);
    if (body[i] !== COLON) return null;
    i = skipSpace(body, i + 1);
    const end = valueEnd(body, i);
    if (key === 'data') found = body[i] === OPEN_BRACKET ? elements(body, i) : null;
    i = skipSpace(body, end);
    if (body[i] !== COMMA) break;
    i = skipSpace(body, i + 1);
  }
  return found;
}

/** The parsed document of a stored list file; each object record of its `data` remembers its stored bytes. */
export function storedList(body: Buffer): unknown {
  const document: unknown = JSON.parse(body.toString('utf8'));
  const data = (document as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return document;
  const ranges = dataRanges(body);
  if (ranges === null || ranges.length !== data.length) return document;
  data.forEach((record: unknown, i) => {
    if (typeof record === 'object' && record !== null) storedBytes.set(record, body.subarray(...ranges[i]!));
  });
  return document;
}

/**
 * `value` as JSON, each record read through `storedList` as its stored bytes. Everything else is what an answer
 * builds itself (links, meta, arrays of records): shallow, so the recursion here stays shallow too.
 */
export function answerBytes(value: unknown): Buffer {
  const parts: Buffer[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') parts.push(Buffer.from(htmlSafeJson(text)));
    text = '';
  };
  const write = (item: unknown): void => {
    const stored = typeof item === 'object' && item !== null ? storedBytes.get(item) : undefined;
    if (stored !== undefined) {
      flush();
      parts.push(stored);
    } else if (Array.isArray(item)) {
      text += '[';
      item.forEach((element, i) => {
        if (i > 0) text += ',';
        // JSON.stringify writes null for what has no JSON form inside an array.
        if (element === undefined || typeof element === 'function' || typeof element === 'symbol') text += 'null';
        else write(element);
      });
      text += ']';
    } else if (typeof item === 'object' && item !== null && Object.getPrototypeOf(item) === Object.prototype) {
      text += '{';
      let first = true;
      for (const [key, member] of Object.entries(item)) {
        if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
        text += `${first ? '' : ','}${JSON.stringify(key)}:`;
        first = false;
        write(member);
      }
      text += '}';
    } else {
      text += JSON.stringify(item);
    }
  };
  write(value);
  flush();
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}
