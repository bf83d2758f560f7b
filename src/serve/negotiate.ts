/**
 * A browser asks for a page, a JSON:API client for the document (docs/catalogue.md): an API URL whose Accept header
 * prefers HTML gets the catalogue's page for that document, as the live service answers a browser with its
 * browsable page. Everything else, `*` and no Accept included, gets the JSON exactly as before.
 */
import { catalogueFileOf } from '../format/catalogue-names.js';
import type { Layout } from '../format/layout.js';
import type { RequestTarget } from './request-target.js';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const JSON_TYPES = new Set(['application/vnd.api+json', 'application/json']);

/** True when `accept` names an HTML type explicitly, with a weight above every JSON type and above `*\/*`. */
export function prefersHtml(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let html = 0;
  let other = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight)) continue;
    if (HTML_TYPES.has(type)) html = Math.max(html, weight);
    else if (JSON_TYPES.has(type) || type === '*/*' || type === 'application/*') other = Math.max(other, weight);
  }
  return html > 0 && html > other;
}

/** The API segments below the root of a stored document's file (`units/3/index.html` → units, 3), or null. */
function segmentsOf(file: string, layout: Layout): string[] | null {
  const root = layout.rootSegments();
  const parts = file.split('/');
  if (parts.pop() !== 'index.html' || !root.every((segment, i) => parts[i] === segment)) return null;
  return parts.slice(root.length);
}

/** The record whose own document `file` is (`<collection>/<id>/index.html` below the API root), or null. */
export function recordOfFile(file: string, layout: Layout): { collection: string; id: string } | null {
  const below = segmentsOf(file, layout);
  return below?.length === 2 ? { collection: below[0]!, id: below[1]! } : null;
}

/** The catalogue page standing for a request's target, or null when there is none. */
export function cataloguePageOf(target: RequestTarget, layout: Layout): string | null {
  if (target.kind === 'list') return catalogueFileOf(layout, { collection: target.collection });
  if (target.kind !== 'file') return null;
  const below = segmentsOf(target.file, layout);
  if (below === null) return null;
  if (below.length === 0) return catalogueFileOf(layout, {});
  if (below.length === 2) return catalogueFileOf(layout, { collection: below[0]!, id: below[1]! });
  return null;
}

/**
 * A catalogue page answered at an API URL: its links are relative to the page's own place in the tree, so a `<base>`
 * naming that place goes first in its head (the file itself stays as it is, since it also opens from the disk).
 */
export function pageAtApiUrl(html: Buffer, page: string): Buffer {
  const head = html.indexOf('<head>');
  if (head < 0) return html;
  const at = head + '<head>'.length;
  const base = Buffer.from(`\n<base href="/${page.split('/').map(encodeURIComponent).join('/')}">`);
  return Buffer.concat([html.subarray(0, at), base, html.subarray(at)]);
}
