/**
 * Where a fetched document and its derivation first differ: a JSON pointer (RFC 6901) and the two values there as
 * written, for the report. Member order counts, since the stored bytes keep it.
 */
import { isObject } from '../json/is-object.js';
import { memberNames, sourceNumberText, stringifyJson } from '../json/parse-json.js';
import { jsonPointer } from '../validate/rules.js';

export interface Difference {
  /** Where the documents first differ; '' for the whole document. */
  pointer: string;
  /** The fetched value there, as written (cut short past `EXCERPT` characters); null when absent. */
  fetched: string | null;
  /** The derived value there, likewise. */
  derived: string | null;
}

const EXCERPT = 200;

/** A member of an array or object as written: a number keeps the text the source gave it. */
function textAt(container: object, key: string | number): string | undefined {
  const value = (container as Record<string, unknown>)[key];
  if (value === undefined) return undefined;
  return sourceNumberText(container, String(key)) ?? stringifyJson(value);
}

function excerpt(container: object, key: string | number): string | null {
  const text = textAt(container, key);
  if (text === undefined) return null;
  return text.length <= EXCERPT ? text : `${text.slice(0, EXCERPT)}…`;
}

function whole(value: unknown): string | null {
  return excerpt({ value }, 'value');
}

/** The first difference between two parsed documents, or null when they are written alike. */
export function firstDifference(fetched: unknown, derived: unknown): Difference | null {
  if (stringifyJson(fetched) === stringifyJson(derived)) return null;
  const path: Array<string | number> = [];
  let [a, b] = [fetched, derived];
  for (;;) {
    if (Array.isArray(a) && Array.isArray(b)) {
      const left: unknown[] = a;
      const right: unknown[] = b;
      const at = left.findIndex((_, i) => i >= right.length || textAt(left, i) !== textAt(right, i));
      const i = at < 0 ? left.length : at;
      path.push(i);
      if (at < 0 || at >= right.length || typeof left[i] !== 'object' || left[i] === null) {
        return { pointer: jsonPointer(path), fetched: excerpt(left, i), derived: excerpt(right, i) };
      }
      [a, b] = [left[i], right[i]];
      continue;
    }
    if (isObject(a) && isObject(b)) {
      const names = memberNames(a);
      const other = memberNames(b);
      const at = names.findIndex((name, i) => name !== other[i]);
      if (at >= 0 || names.length !== other.length) {
        // A member missing, added or in another place: the pointer names the first member out of place.
        const i = at >= 0 ? at : names.length;
        const name = names[i] ?? other[i]!;
        path.push(name);
        return { pointer: jsonPointer(path), fetched: excerpt(a, name), derived: excerpt(b, name) };
      }
      const [left, right] = [a, b];
      const differing = names.find((name) => textAt(left, name) !== textAt(right, name))!;
      path.push(differing);
      if (typeof left[differing] !== 'object' || left[differing] === null) {
        return { pointer: jsonPointer(path), fetched: excerpt(left, differing), derived: excerpt(right, differing) };
      }
      [a, b] = [left[differing], right[differing]];
      continue;
    }
    // Different types (an object against an array or a scalar): the whole value here differs.
    return { pointer: jsonPointer(path), fetched: whole(a), derived: whole(b) };
  }
}
