/**
 * The exact path for the rare document that a JSON.parse and JSON.stringify round trip would change (scan.ts says
 * which): it is parsed into the same plain values JSON.parse gives (numbers are numbers, so validation and link
 * rewriting see nothing different), and each container that needs it remembers, off to the side, the source text
 * of its numbers that JavaScript would write differently and the source order of its members. `stringifyJson`
 * writes those back, so the stored document keeps the source's `1e400`, `18446744073709551617`, `1.50` and `-0`,
 * and its member order.
 *
 * What is remembered is checked against the value when it is written: a member that was changed since (a link
 * rewritten, a number replaced) is written as it is now.
 *
 * A member name given twice in one object cannot be written back: the value holds one of them (the last, in the
 * first one's place, as JSON.parse does). The parser lists each such name with the source text of every value it
 * was given, for the crawl to report (`json.duplicate`).
 */

interface Exact {
  /** Source text of numbers that JSON.stringify would write differently, by member name or array index. */
  numbers?: Map<string, string>;
  /** Member names in source order, when V8 keeps them in another one (array-index names come first). */
  order?: string[];
}

/**
 * Containers parsed on the exact path that hold, themselves or further down, something to write back exactly. A
 * container not in here is written by JSON.stringify, as on the plain path.
 */
const exactness = new WeakMap<object, Exact>();

/** A member name an object of the text gives more than once. */
export interface DuplicateMember {
  /** Member names and array indexes from the top of the text to the object, then the name itself. */
  path: string[];
  /** The source text of each value given, in source order; the value parsed is the last. */
  values: string[];
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

class ExactParser {
  private at = 0;
  /** Where the cursor is: the member names and indexes of the containers it is in. */
  private readonly path: string[] = [];
  readonly duplicates: DuplicateMember[] = [];

  constructor(private readonly text: string) {}

  parse(): unknown {
    this.skip();
    return this.value().value;
  }

  private skip(): void {
    WHITESPACE.lastIndex = this.at;
    WHITESPACE.exec(this.text);
    this.at = WHITESPACE.lastIndex;
  }

  /** The value at the cursor, and whether it (or something in it) is to be written back exactly. */
  private value(): { value: unknown; exact: boolean } {
    const c = this.text.charCodeAt(this.at);
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x22) return { value: this.string(), exact: false };
    if (c === 0x74) return this.literal('true', true);
    if (c === 0x66) return this.literal('false', false);
    if (c === 0x6e) return this.literal('null', null);
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (match === null) throw new SyntaxError(`Unexpected character at position ${this.at}`);
    this.at = NUMBER.lastIndex;
    return { value: Number(match[0]), exact: false };
  }

  /** The source text of the number just read, when JavaScript would write its value differently. */
  private numberText(value: unknown, start: number): string | undefined {
    if (typeof value !== 'number') return undefined;
    const text = this.text.slice(start, this.at);
    return String(value) === text ? undefined : text;
  }

  private literal(word: string, value: unknown): { value: unknown; exact: boolean } {
    if (!this.text.startsWith(word, this.at)) throw new SyntaxError(`Unexpected token at position ${this.at}`);
    this.at += word.length;
    return { value, exact: false };
  }

  private string(): string {
    const start = this.at;
    let end = this.text.indexOf('"', start + 1);
    for (;;) {
      if (end === -1) throw new SyntaxError('Unterminated string');
      let slashes = 0;
      for (let i = end - 1; this.text.charCodeAt(i) === 0x5c; i -= 1) slashes += 1;
      if (slashes % 2 === 0) break;
      end = this.text.indexOf('"', end + 1);
    }
    this.at = end + 1;
    // JSON.parse decodes the escapes exactly as it would in the whole document.
    return JSON.parse(this.text.slice(start, end + 1)) as string;
  }

  private expect(code: number): void {
    if (this.text.charCodeAt(this.at) !== code) {
      throw new SyntaxError(`Expected '${String.fromCharCode(code)}' at position ${this.at}`);
    }
    this.at += 1;
  }

  private object(): { value: unknown; exact: boolean } {
    this.at += 1;
    const object: Record<string, unknown> = {};
    const info: Exact = {};
    const order: string[] = [];
    /** Where each member's first value is in the text, and the name's duplicate entry once it is given again. */
    const spans = new Map<string, { start: number; end: number; duplicate?: DuplicateMember }>();
    let exact = false;
    this.skip();
    if (this.text.charCodeAt(this.at) === 0x7d) {
      this.at += 1;
      return { value: object, exact: false };
    }
    for (;;) {
      this.skip();
      const key = this.string();
      this.skip();
      this.expect(0x3a);
      this.skip();
      const start = this.at;
      this.path.push(key);
      const member = this.value();
      this.path.pop();
      // As JSON.parse: an own property even for "__proto__", and a repeated name keeps its first place.
      Object.defineProperty(object, key, { value: member.value, writable: true, enumerable: true, configurable: true });
      const first = spans.get(key);
      if (first === undefined) {
        spans.set(key, { start, end: this.at });
        order.push(key);
      } else if (first.duplicate === undefined) {
        const values = [this.text.slice(first.start, first.end), this.text.slice(start, this.at)];
        first.duplicate = { path: [...this.path, key], values };
        this.duplicates.push(first.duplicate);
      } else {
        first.duplicate.values.push(this.text.slice(start, this.at));
      }
      const text = this.numberText(member.value, start);
      if (text !== undefined) (info.numbers ??= new Map()).set(key, text);
      else info.numbers?.delete(key);
      exact ||= member.exact || text !== undefined;
      this.skip();
      if (this.text.charCodeAt(this.at) === 0x2c) {
        this.at += 1;
        continue;
      }
      this.expect(0x7d);
      break;
    }
    const keys = Object.keys(object);
    if (keys.some((key, i) => key !== order[i])) info.order = order;
    exact ||= info.order !== undefined;
    if (exact) exactness.set(object, info);
    return { value: object, exact };
  }

  private array(): { value: unknown; exact: boolean } {
    this.at += 1;
    const array: unknown[] = [];
    const info: Exact = {};
    let exact = false;
    this.skip();
    if (this.text.charCodeAt(this.at) === 0x5d) {
      this.at += 1;
      return { value: array, exact: false };
    }
    for (;;) {
      this.skip();
      const start = this.at;
      this.path.push(String(array.length));
      const item = this.value();
      this.path.pop();
      const text = this.numberText(item.value, start);
      if (text !== undefined) (info.numbers ??= new Map()).set(String(array.length), text);
      array.push(item.value);
      exact ||= item.exact || text !== undefined;
      this.skip();
      if (this.text.charCodeAt(this.at) === 0x2c) {
        this.at += 1;
        continue;
      }
      this.expect(0x5d);
      break;
    }
    if (exact) exactness.set(array, info);
    return { value: array, exact };
  }
}

/**
 * Parses valid JSON (JSON.parse has accepted it) into the values JSON.parse gives, remembering what `stringifyJson`
 * needs to write the numbers and member order back as they were (in objects and arrays: a number that is the whole
 * text has no container to remember it in), and listing the member names given twice. Recursive: the caller has
 * bounded the depth.
 */
export function parseExact(text: string): { value: unknown; duplicates: DuplicateMember[] } {
  const parser = new ExactParser(text);
  const value = parser.parse();
  return { value, duplicates: parser.duplicates };
}

/** Whether a number still holds the value its remembered source text stands for. */
function sameNumber(value: unknown, text: string): boolean {
  return typeof value === 'number' && Object.is(value, Number(text));
}

function member(value: unknown, text: string | undefined): string | undefined {
  if (text !== undefined && sameNumber(value, text)) return text;
  if (typeof value === 'object' && value !== null && exactness.has(value)) return exactText(value);
  return JSON.stringify(value);
}

function exactText(value: object): string {
  const info = exactness.get(value)!;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown, i) => member(item, info.numbers?.get(String(i))) ?? 'null');
    return `[${items.join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  let keys = Object.keys(record);
  if (info.order !== undefined) {
    const current = new Set(keys);
    const ordered = info.order.filter((key) => current.has(key));
    const known = new Set(ordered);
    keys = [...ordered, ...keys.filter((key) => !known.has(key))];
  }
  const members: string[] = [];
  for (const key of keys) {
    const text = member(record[key], info.numbers?.get(key));
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

/** An object's member names in the order `stringifyJson` writes them: the source's order for an exact-path value. */
export function memberNames(object: object): string[] {
  const keys = Object.keys(object);
  const order = exactness.get(object)?.order;
  if (order === undefined) return keys;
  const current = new Set(keys);
  const ordered = order.filter((key) => current.has(key));
  const known = new Set(ordered);
  return [...ordered, ...keys.filter((key) => !known.has(key))];
}

/**
 * The source text of the number `container[key]` when it was parsed on the exact path and JavaScript would write
 * it differently (`1e400`, `18446744073709551617`, `1.50`); undefined otherwise, when String(value) is its text.
 */
export function sourceNumberText(container: object, key: string): string | undefined {
  const text = exactness.get(container)?.numbers?.get(key);
  return text !== undefined && sameNumber((container as Record<string, unknown>)[key], text) ? text : undefined;
}

/**
 * JSON.stringify, except that a value parsed on the exact path (or a part of one) is written with its source's
 * number text and member order.
 */
export function stringifyJson(value: unknown): string {
  if (typeof value === 'object' && value !== null && exactness.has(value)) return exactText(value);
  return JSON.stringify(value);
}
