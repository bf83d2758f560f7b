/** The graph as Turtle (RFC-less but W3C's 2014 Recommendation): prefixes, then one block per node. */
import type { RdfNode, RdfObject } from './rdf-node.js';
import { PREFIXES } from './vocabulary.js';

const ECHAR: Record<string, string> = {
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\b': '\\b',
  '\f': '\\f',
  '"': '\\"',
  '\\': '\\\\',
};

function literal(text: string): string {
  const body = text.replace(
    // eslint-disable-next-line no-control-regex -- control characters are what this escapes
    /[\u0000-\u001f"\\\u007f]/g,
    (char) => ECHAR[char] ?? `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
  return `"${body}"`;
}

function term(object: RdfObject): string {
  if ('iri' in object) return `<${object.iri}>`;
  if ('datatype' in object) return `${literal(object.text)}^^${object.datatype}`;
  return object.language === undefined ? literal(object.text) : `${literal(object.text)}@${object.language}`;
}

export function turtleHead(): string {
  const lines = Object.entries(PREFIXES).map(([prefix, iri]) => `@prefix ${prefix}: <${iri}> .`);
  return `${lines.join('\n')}\n`;
}

/** One node: `<iri> a class ;` then its properties, values of one property joined by commas. */
export function turtleNode(node: RdfNode): string {
  const lines = [`\n<${node.id}> a ${node.type}`];
  for (const [i, [property, object]] of node.statements.entries()) {
    const previous = node.statements[i - 1];
    if (previous?.[0] === property) lines[lines.length - 1] += `, ${term(object)}`;
    else lines.push(`    ${property} ${term(object)}`);
  }
  return `${lines.join(' ;\n')} .\n`;
}
