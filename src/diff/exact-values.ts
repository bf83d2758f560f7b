/**
 * Attribute values as the source wrote them. Documents are parsed with `parseJson`, which keeps the text of the
 * numbers JavaScript would change (`18446744073709551617`, `1e400`), so two values compare by what they say, not
 * by the double they round to: `...617` and `...618` differ, `1.0` and `1` do not. The diff prints them with
 * that text too, in Markdown and JSON.
 */
import { isObject } from '../json/is-object.js';
import { MAX_JSON_DEPTH, parseJson, sourceNumberText, stringifyJson } from '../json/parse-json.js';

const DECIMAL = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/**
 * One spelling per decimal value: digits without leading or trailing zeros, and the power of ten they are
 * multiplied by (a BigInt: `1e99999999999999999999` is valid JSON).
 */
function decimalKey(text: string): string {
  const match = DECIMAL.exec(text);
  if (match === null) return text;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  let power = BigInt(exponent) - BigInt(fraction.length);
  const trimmed = digits.replace(/0+$/, '');
  power += BigInt(digits.length - trimmed.length);
  digits = trimmed;
  return `${sign}${digits}e${power}`;
}

/** The text of the number `container[key]`: the source's when JavaScript would write it differently. */
function numberText(container: object, key: string, value: number): string {
  return sourceNumberText(container, key) ?? JSON.stringify(value);
}

/** A canonical form of `container[key]` for comparing: members sorted, numbers by decimal value. */
function canonical(container: object, key: string): string {
  const value = (container as Record<string, unknown>)[key];
  if (typeof value === 'number') return `#${decimalKey(numberText(container, key, value))}`;
  if (Array.isArray(value)) return `[${value.map((_, i) => canonical(value, String(i))).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value, k)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A relationships object with only each relationship's `data`: its links depend on where the snapshot was made. */
function linkageOnly(container: object, key: string): string {
  const relationships = (container as Record<string, unknown>)[key];
  if (!isObject(relationships)) return canonical(container, key);
  const names = Object.keys(relationships).sort();
  const each = names.map((name) => {
    const relationship = relationships[name];
    const targets = isObject(relationship) ? canonical(relationship, 'data') : canonical(relationships, name);
    return `${JSON.stringify(name)}:${targets}`;
  });
  return `{${each.join(',')}}`;
}

/**
 * A canonical form of the list element `list[index]` that has no type and id, to compare it as a whole: as
 * records compare, without its `links` and `meta` and with its relationships' targets only, so that two snapshots
 * of one state made at other addresses or with other `--links` hold the same.
 */
export function elementText(list: readonly unknown[], index: number): string {
  const item = list[index];
  if (!isObject(item)) return canonical(list, String(index));
  const keys = Object.keys(item)
    .filter((key) => key !== 'links' && key !== 'meta')
    .sort();
  const each = keys.map(
    (key) => `${JSON.stringify(key)}:${key === 'relationships' ? linkageOnly(item, key) : canonical(item, key)}`,
  );
  return `{${each.join(',')}}`;
}

/** Whether `a[aKey]` and `b[bKey]` hold the same JSON value. */
export function sameMember(a: object, aKey: string, b: object, bKey: string): boolean {
  return canonical(a, aKey) === canonical(b, bKey);
}

/** `container[key]` as compact JSON text, numbers as the source wrote them. */
export function memberText(container: object, key: string): string {
  const value = (container as Record<string, unknown>)[key];
  if (typeof value === 'number') return numberText(container, key, value);
  return stringifyJson(value) ?? 'null';
}

/**
 * A new object with members copied from others: `[name, container, key]` copies `container[key]`, numbers keeping
 * their source text (through a parse, the one way to give a new object that memory); `[name, value]` sets a plain
 * value. A member whose source is absent is left out.
 */
export function exactObject(members: Array<[string, object, string] | [string, unknown]>): Record<string, unknown> {
  const parts: string[] = [];
  for (const member of members) {
    if (member.length === 3) {
      const [name, container, key] = member;
      if (Object.hasOwn(container, key)) parts.push(`${JSON.stringify(name)}:${memberText(container, key)}`);
    } else {
      parts.push(`${JSON.stringify(member[0])}:${JSON.stringify(member[1])}`);
    }
  }
  // One level deeper than the values copied, which were parsed within the limit.
  return parseJson(`{${parts.join(',')}}`, MAX_JSON_DEPTH + 1) as Record<string, unknown>;
}

/** JSON.stringify(value, null, 2), except that numbers keep their source text. */
export function prettyJson(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item: unknown, i) => `${inner}${prettyMember(value, String(i), item, inner) ?? 'null'}`);
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  if (isObject(value)) {
    const members: string[] = [];
    for (const key of Object.keys(value)) {
      const text = prettyMember(value, key, value[key], inner);
      if (text !== undefined) members.push(`${inner}${JSON.stringify(key)}: ${text}`);
    }
    return members.length === 0 ? '{}' : `{\n${members.join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

function prettyMember(container: object, key: string, value: unknown, indent: string): string | undefined {
  if (typeof value === 'number') return numberText(container, key, value);
  if (value === undefined || typeof value === 'function') return undefined;
  return prettyJson(value, indent);
}
