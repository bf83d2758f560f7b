/**
 * Which RDF format a request asks for (docs/hosting.md): kept apart from the SKOS answers themselves (skos.ts), so
 * that serve loads the export's mapping only when a client asks for SKOS.
 */

/** The RDF formats serve answers, with their media types. */
export const RDF_TYPES: Readonly<Record<'turtle' | 'jsonld', string>> = {
  turtle: 'text/turtle; charset=utf-8',
  jsonld: 'application/ld+json',
};
export type RdfFormat = keyof typeof RDF_TYPES;

const ACCEPTED: ReadonlyMap<string, RdfFormat> = new Map([
  ['text/turtle', 'turtle'],
  ['application/x-turtle', 'turtle'],
  ['application/ld+json', 'jsonld'],
]);
const OTHERS = new Set(['application/vnd.api+json', 'application/json', 'text/html', 'application/xhtml+xml', '*/*']);

/**
 * The RDF format `accept` names explicitly with a weight above every JSON:API, JSON and HTML type and `*\/*`, or null:
 * a JSON:API client, a browser and a request with no Accept are answered as before.
 */
export function preferredRdf(accept: string | undefined): RdfFormat | null {
  if (accept === undefined) return null;
  let best: { format: RdfFormat; weight: number } | null = null;
  let other = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight) || weight <= 0) continue;
    const format = ACCEPTED.get(type);
    if (format !== undefined && (best === null || weight > best.weight)) best = { format, weight };
    else if (OTHERS.has(type) || type === 'application/*') other = Math.max(other, weight);
  }
  return best !== null && best.weight > other ? best.format : null;
}
