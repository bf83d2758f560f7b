/**
 * Learning a kind's shape and checking it: the template comes from the kind's first sample (by URL, so the result
 * does not depend on the order responses arrive in), and every other sample is derived with it and compared.
 */
import { parseJson, stringifyJson } from '../json/parse-json.js';
import { firstDifference, type Difference } from './compare.js';
import type { DocumentKind } from './kinds.js';
import { fillTemplate, hasLiteral, learnTemplate, type Sources, type Template } from './template.js';

export interface Sample {
  readonly url: string;
  /** The fetched document as written by stringifyJson, before links are rewritten. */
  readonly text: string;
  readonly sources: Sources;
}

export interface Mismatch extends Difference {
  /** The sample's canonical URL. */
  url: string;
}

/** What the shape of a kind most servers serve is: used to show a difference when nothing could be learned. */
export function defaultTemplate(kind: DocumentKind): Template {
  switch (kind) {
    case 'record':
      return { members: [['data', { slot: 'entry' }]] };
    case 'relationship-to-one':
      return {
        members: [
          ['data', { slot: 'linkage' }],
          ['links', { members: [['self', { slot: 'relationship.links.self' }]] }],
        ],
      };
    case 'relationship-to-many':
      return {
        members: [
          ['data', { slot: 'linkage' }],
          ['links', { members: [['self', { slot: 'relationship.links.self' }]] }],
          ['meta', { members: [['count', { slot: 'count' }]] }],
        ],
      };
    case 'related-to-one':
    case 'related-to-many':
      return { members: [['data', { slot: 'targets' }]] };
  }
}

export type Verdict =
  | { readonly ok: true; readonly template: Template; readonly needsAnotherSample: boolean }
  | { readonly ok: false; readonly mismatches: readonly Mismatch[] };

function compare(sample: Sample, template: Template): Mismatch | null {
  const derived = fillTemplate(template, sample.sources);
  const fetched = parseJson(sample.text);
  const difference =
    derived === null
      ? { pointer: '', fetched: stringifyJson(fetched).slice(0, 200), derived: null }
      : firstDifference(fetched, parseJson(derived));
  return difference === null ? null : { url: sample.url, ...difference };
}

/**
 * Learns the shape of one kind in one collection from its samples and checks it against all of them. A template
 * that holds a literal and was seen on one sample only asks for another sample (`needsAnotherSample`): one document
 * cannot tell a constant from a value of its own.
 */
export function learnKind(kind: DocumentKind, samples: readonly Sample[], documents: number): Verdict {
  const ordered = [...samples].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  const first = ordered[0];
  if (first === undefined) return { ok: true, template: defaultTemplate(kind), needsAnotherSample: false };
  const template = learnTemplate(parseJson(first.text), first.sources);
  if (template === null) {
    const mismatch = compare(first, defaultTemplate(kind));
    return { ok: false, mismatches: mismatch === null ? [] : [mismatch] };
  }
  const mismatches = ordered.slice(1).flatMap((sample) => compare(sample, template) ?? []);
  if (mismatches.length > 0) return { ok: false, mismatches };
  return { ok: true, template, needsAnotherSample: ordered.length === 1 && documents > 1 && hasLiteral(template) };
}
