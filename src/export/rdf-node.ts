/**
 * The graph as the export builds it: one node per scheme and per concept, each a subject IRI, its class and its
 * statements. No blank nodes, so two serialisations of one graph compare as sorted N-Quads.
 */
import { byCodeUnits } from '../util/code-unit-order.js';
import type { Prefixed } from './vocabulary.js';

export type RdfObject =
  { iri: string } | { text: string; language?: string | undefined } | { text: string; datatype: Prefixed };

export interface RdfNode {
  id: string;
  type: Prefixed;
  /** Sorted by property, then object (`sortStatements`): the order both serialisations write them in. */
  statements: Array<[Prefixed, RdfObject]>;
}

function objectKey(object: RdfObject): string {
  if ('iri' in object) return `0${object.iri}`;
  if ('datatype' in object) return `1${object.text}\u0000${object.datatype}`;
  return `1${object.text}\u0000${object.language ?? ''}`;
}

/** The statements in one order (property, then object), without repeats. */
export function sortStatements(statements: Array<[Prefixed, RdfObject]>): Array<[Prefixed, RdfObject]> {
  const keyed = new Map<string, [Prefixed, RdfObject]>();
  for (const statement of statements) keyed.set(`${statement[0]}\u0001${objectKey(statement[1])}`, statement);
  return [...keyed.entries()].sort(([a], [b]) => byCodeUnits(a, b)).map(([, statement]) => statement);
}

/**
 * Text as every format writes it: a lone UTF-16 surrogate (JSON can carry one, UTF-8 cannot) becomes U+FFFD, so the
 * Turtle, the JSON-LD and the CSV hold the same characters.
 */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
