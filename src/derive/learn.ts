/**
 * Learning a kind's shape and checking it: the template comes from the kind's first sample (by URL, so the result
 * does not depend on the order responses arrive in), and every other sample is derived with it and compared.
 */
import { parseJson, stringifyJson } from '../json/parse-json.js';
import { firstDifference, type Difference } from './compare.js';
import type { DocumentKind } from '../format/derive-manifest.js';
import { fillTemplate, hasLiteral, learnTemplate, type Sources, type Template } from './template.js';
import { byCodeUnits } from '../util/code-unit-order.js';

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
function defaultTemplate(kind: DocumentKind): Template {
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

/** How many samples' own shapes are tried besides the usual one: a few, so checking stays linear in the sample. */
const CANDIDATES = 3;

/**
 * Learns the shape of one kind in one collection from its samples and checks it against all of them. The shape
 * kept is the one that most samples agree with, among the usual shape and those of the first few samples (by URL):
 * one odd document among them is then the one reported as differing, not all the others. A shape that holds a
 * literal and was confirmed by one sample only asks for another sample (`needsAnotherSample`): one document cannot
 * tell a constant from a value of its own.
 */
export function learnKind(kind: DocumentKind, samples: readonly Sample[], documents: number): Verdict {
  const ordered = [...samples].sort((a, b) => byCodeUnits(a.url, b.url));
  if (ordered.length === 0) return { ok: true, template: defaultTemplate(kind), needsAnotherSample: false };
  // The usual shape first: when samples disagree evenly, it is the likelier one.
  const candidates: Template[] = [defaultTemplate(kind)];
  for (const sample of ordered.slice(0, CANDIDATES)) {
    const template = learnTemplate(parseJson(sample.text), sample.sources);
    if (template !== null) candidates.push(template);
  }
  let best: { template: Template; mismatches: Mismatch[] } | undefined;
  for (const template of candidates) {
    const mismatches = ordered.flatMap((sample) => compare(sample, template) ?? []);
    if (best === undefined || mismatches.length < best.mismatches.length) best = { template, mismatches };
    if (mismatches.length === 0) break;
  }
  if (best!.mismatches.length > 0) return { ok: false, mismatches: best!.mismatches };
  const needsAnotherSample = ordered.length === 1 && documents > 1 && hasLiteral(best!.template);
  return { ok: true, template: best!.template, needsAnotherSample };
}
