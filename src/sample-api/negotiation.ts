/**
 * Content negotiation as Django REST framework does it (docs/source-api.md#media-type-and-headers): two renderers,
 * JSON:API first and the HTML browsable page second; `?format=` narrows them to one; the Accept header's media ranges
 * are tried from the most specific to the least, renderer by renderer. q-values are ignored, as DRF ignores them.
 */

export type Renderer = 'json' | 'html';

interface RendererType {
  readonly renderer: Renderer;
  readonly format: string;
  readonly main: string;
  readonly sub: string;
}

const RENDERERS: readonly RendererType[] = [
  { renderer: 'json', format: 'vnd.api+json', main: 'application', sub: 'vnd.api+json' },
  { renderer: 'html', format: 'api', main: 'text', sub: 'html' },
];

interface MediaRange {
  readonly main: string;
  readonly sub: string;
  readonly precedence: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [type = '', ...params] = part.split(';');
    const [main = '', sub = ''] = type.trim().toLowerCase().split('/');
    if (main === '') continue;
    const hasParams = params.some((param) => param.split('=')[0]?.trim().toLowerCase() !== 'q');
    const precedence = main === '*' ? 0 : sub === '*' ? 1 : hasParams ? 3 : 2;
    ranges.push({ main, sub, precedence });
  }
  return ranges;
}

function matches(renderer: RendererType, range: MediaRange): boolean {
  return (range.main === '*' || range.main === renderer.main) && (range.sub === '*' || range.sub === renderer.sub);
}

/**
 * The renderer for a request, or why there is none: `not-found` for an unknown `format` (DRF answers 404),
 * `not-acceptable` when the Accept header matches no remaining renderer (406).
 */
export function selectRenderer(
  accept: string | undefined,
  format: string | null,
): Renderer | 'not-found' | 'not-acceptable' {
  const candidates = format === null ? RENDERERS : RENDERERS.filter((r) => r.format === format);
  if (candidates.length === 0) return 'not-found';
  const ranges = parseAccept(accept === undefined || accept.trim() === '' ? '*/*' : accept);
  for (let precedence = 3; precedence >= 0; precedence -= 1) {
    const group = ranges.filter((range) => range.precedence === precedence);
    if (group.length === 0) continue;
    for (const candidate of candidates) {
      if (group.some((range) => matches(candidate, range))) return candidate.renderer;
    }
  }
  return 'not-acceptable';
}

export type Encoding = 'br' | 'gzip';

function acceptedEncodings(header: string | undefined): Map<string, number> {
  const weights = new Map<string, number>();
  if (header === undefined) return weights;
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';');
    const token = name.trim().toLowerCase();
    if (token === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=');
      if (key?.trim().toLowerCase() === 'q') q = Number.parseFloat(value ?? '1');
    }
    weights.set(token, Number.isFinite(q) ? q : 0);
  }
  return weights;
}

function weightOf(weights: Map<string, number>, encoding: string): number {
  return weights.get(encoding) ?? weights.get('*') ?? 0;
}

/** Whether the client accepts gzip at all (the corrupt-gzip fault is only sent to such clients). */
export function acceptsGzip(header: string | undefined): boolean {
  return weightOf(acceptedEncodings(header), 'gzip') > 0;
}

/** br when it weighs at least as much as gzip, else gzip, else none. */
export function selectEncoding(header: string | undefined): Encoding | null {
  const weights = acceptedEncodings(header);
  const br = weightOf(weights, 'br');
  const gzip = weightOf(weights, 'gzip');
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return null;
}
