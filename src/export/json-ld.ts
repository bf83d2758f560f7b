/**
 * The graph as JSON-LD 1.1: the same nodes and statements as the Turtle, under an @context that declares the same
 * prefixes, so every key reads as in the Turtle (`skos:prefLabel`). One object per node in `@graph`.
 */
import type { RdfNode, RdfObject } from './rdf-node.js';
import { PREFIXES } from './vocabulary.js';

function value(object: RdfObject): unknown {
  if ('iri' in object) return { '@id': object.iri };
  if ('datatype' in object) return { '@value': object.text, '@type': object.datatype };
  return object.language === undefined ? object.text : { '@value': object.text, '@language': object.language };
}

export function jsonLdHead(): string {
  const context = JSON.stringify({ '@context': PREFIXES }, null, 2).slice(0, -2);
  return `${context},\n  "@graph": [`;
}

export function jsonLdNode(node: RdfNode, first: boolean): string {
  const object: Record<string, unknown> = { '@id': node.id, '@type': node.type };
  for (const [property, statement] of node.statements) {
    const previous: unknown = object[property];
    const next = value(statement);
    if (previous === undefined) object[property] = next;
    else if (Array.isArray(previous)) previous.push(next);
    else object[property] = [previous, next];
  }
  const text = JSON.stringify(object, null, 2).replace(/\n/g, '\n    ');
  return `${first ? '' : ','}\n    ${text}`;
}

export function jsonLdTail(): string {
  return '\n  ]\n}\n';
}
