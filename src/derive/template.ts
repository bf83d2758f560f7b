/**
 * A document's shape, learned from a fetched sample: which members it has, in which order, and where each comes
 * from. A member is a slot (a value the lists give, such as the record's list entry or a relationship's linkage),
 * or a literal seen in the sample (a constant such as `"jsonapi": {"version": "1.0"}`). Only the top level and its
 * `links` and `meta` objects are taken apart; anything deeper is a slot or a literal as a whole, so a per-record
 * oddity inside `data` is never learned, only found by comparison.
 *
 * Everything works on JSON text written by `stringifyJson`, so that a derived document has the source's member order
 * and number spelling wherever its pieces came from.
 */
import { isObject } from '../json/is-object.js';
import { memberNames, stringifyJson } from '../json/parse-json.js';

/** Named JSON texts a document of some kind can be built from, in order of preference. */
export type Sources = ReadonlyMap<string, string>;

export type Template =
  | { readonly slot: string }
  | { readonly literal: string }
  | { readonly members: ReadonlyArray<readonly [string, Template]> };

/** The members taken apart below the top level: the ones servers are seen to add to or reorder. */
const OPENED = new Set(['links', 'meta']);

/**
 * The template that writes `document` from `sources`: each value equal (as written) to a source becomes that
 * source's slot, the first in preference order. Returns null when `data` does not come from a source: such a
 * document cannot be derived at all.
 */
export function learnTemplate(document: unknown, sources: Sources): Template | null {
  if (!isObject(document) || !('data' in document)) return null;
  const template = learn(document, sources, 0);
  if (!('members' in template)) return null;
  const data = template.members.find(([name]) => name === 'data')?.[1];
  return data !== undefined && 'slot' in data ? template : null;
}

function learn(value: unknown, sources: Sources, depth: number): Template {
  const text = stringifyJson(value);
  for (const [name, source] of sources) if (source === text) return { slot: name };
  if (!isObject(value)) return { literal: text };
  const members: Array<readonly [string, Template]> = [];
  for (const name of memberNames(value)) {
    const member = value[name];
    const opened = depth === 0 && OPENED.has(name) && isObject(member);
    members.push([name, opened ? learn(member, sources, 1) : leaf(member, sources)]);
  }
  return { members };
}

function leaf(value: unknown, sources: Sources): Template {
  const text = stringifyJson(value);
  for (const [name, source] of sources) if (source === text) return { slot: name };
  return { literal: text };
}

/** The document's JSON text, or null when a slot has no source for this document (it must be fetched). */
export function fillTemplate(template: Template, sources: Sources): string | null {
  if ('slot' in template) return sources.get(template.slot) ?? null;
  if ('literal' in template) return template.literal;
  const members: string[] = [];
  for (const [name, member] of template.members) {
    const text = fillTemplate(member, sources);
    if (text === null) return null;
    members.push(`${JSON.stringify(name)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

/** Whether a template holds a literal: then one sample alone cannot tell a constant from one record's value. */
export function hasLiteral(template: Template): boolean {
  if ('literal' in template) return true;
  if ('slot' in template) return false;
  return template.members.some(([, member]) => hasLiteral(member));
}

/** A short description for the manifest, such as `{data: entry}` or `{data: linkage, links: {self: …}}`. */
export function describeTemplate(template: Template): string {
  if ('slot' in template) return template.slot;
  if ('literal' in template) return template.literal.length <= 40 ? template.literal : 'literal';
  return `{${template.members.map(([name, member]) => `${name}: ${describeTemplate(member)}`).join(', ')}}`;
}
