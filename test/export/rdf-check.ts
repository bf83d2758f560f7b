/**
 * Reading the export back with maintained RDF libraries (n3 for Turtle and N-Quads, jsonld for JSON-LD), as the
 * tools people load it into would, and the SKOS checks the tests make on the graph.
 */
import jsonld from 'jsonld';
import { Parser, type Quad } from 'n3';

export const SKOS = 'http://www.w3.org/2004/02/skos/core#';
export const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/** A statement as comparable text: subject, predicate, object with its kind, language and datatype. */
export function quadKey(quad: Quad): string {
  const { subject, predicate, object } = quad;
  const value =
    object.termType === 'Literal'
      ? `"${object.value}"@${object.language}^^${object.datatype.value}`
      : `${object.termType}:${object.value}`;
  return `${subject.termType}:${subject.value} ${predicate.value} ${value}`;
}

export function parseTurtle(text: string): Quad[] {
  return new Parser({ format: 'text/turtle' }).parse(text);
}

export async function parseJsonLd(text: string): Promise<Quad[]> {
  const nquads = (await jsonld.toRDF(JSON.parse(text) as object, { format: 'application/n-quads' })) as string;
  return new Parser({ format: 'N-Quads' }).parse(nquads);
}

/** Objects of `predicate` by subject. */
export function objectsBy(quads: Quad[], predicate: string): Map<string, Quad['object'][]> {
  const map = new Map<string, Quad['object'][]>();
  for (const quad of quads) {
    if (quad.predicate.value !== predicate) continue;
    const list = map.get(quad.subject.value) ?? [];
    list.push(quad.object);
    map.set(quad.subject.value, list);
  }
  return map;
}

/** Pairs (a, b) with a hierarchical link (broader, narrower or their match variants) between them, both ways. */
export function hierarchy(quads: Quad[]): { up: Map<string, Set<string>>; pairs: Set<string> } {
  const up = new Map<string, Set<string>>();
  const add = (child: string, parent: string) => {
    const set = up.get(child) ?? new Set<string>();
    set.add(parent);
    up.set(child, set);
  };
  for (const quad of quads) {
    const [s, o] = [quad.subject.value, quad.object.value];
    const p = quad.predicate.value;
    if (p === `${SKOS}broader` || p === `${SKOS}broadMatch`) add(s, o);
    if (p === `${SKOS}narrower` || p === `${SKOS}narrowMatch`) add(o, s);
  }
  const pairs = new Set<string>();
  for (const [child, parents] of up) for (const parent of parents) pairs.add(`${child} ${parent}`);
  return { up, pairs };
}

/** A cycle in the broader direction, or null. */
export function broaderCycle(up: Map<string, Set<string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, trail: string[]): string[] | null => {
    if (state.get(node) === 'open') return [...trail, node];
    if (state.get(node) === 'done') return null;
    state.set(node, 'open');
    for (const parent of up.get(node) ?? []) {
      const cycle = visit(parent, [...trail, node]);
      if (cycle !== null) return cycle;
    }
    state.set(node, 'done');
    return null;
  };
  for (const node of up.keys()) {
    const cycle = visit(node, []);
    if (cycle !== null) return cycle;
  }
  return null;
}

/**
 * RFC 4180: fields separated by commas, records by CRLF, a field in double quotes may hold commas, quotes (doubled)
 * and line breaks. Throws on text that is not CSV.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i += 1;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) throw new Error(`unterminated quoted field at ${i}`);
        field += text.slice(i, quote);
        if (text[quote + 1] === '"') {
          field += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
    } else {
      const end = text.slice(i).search(/[,\r\n"]/);
      const stop = end < 0 ? text.length : i + end;
      if (text[stop] === '"') throw new Error(`a quote inside an unquoted field at ${stop}`);
      field = text.slice(i, stop);
      i = stop;
    }
    row.push(field);
    if (text[i] === ',') {
      i += 1;
    } else if (text.startsWith('\r\n', i)) {
      rows.push(row);
      row = [];
      i += 2;
    } else if (i < text.length) {
      throw new Error(`a field ends in ${JSON.stringify(text[i])} at ${i}, not a comma or CRLF`);
    }
  }
  if (row.length > 0) rows.push(row);
  return rows;
}
