/**
 * HTML for the catalogue: one escaping function that every piece of source text goes through, and the page shell.
 * Templates are plain functions returning strings; text from the source is untrusted (a term may be `<script>`).
 */
import { searchForm } from './search.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or an attribute value made safe to put between tags or inside double quotes. */
export function esc(text: string): string {
  if (!/[&<>"']/.test(text)) return text;
  // One native replace per character (no callback per match): several times faster on a record's JSON.
  return text
    .replace(/&/g, ESCAPES['&']!)
    .replace(/</g, ESCAPES['<']!)
    .replace(/>/g, ESCAPES['>']!)
    .replace(/"/g, ESCAPES['"']!)
    .replace(/'/g, ESCAPES["'"]!);
}

/** A link target made safe for an `href`: only http(s) URLs from the source become outbound links. */
export function isWebUrl(value: unknown): value is string {
  return typeof value === 'string' && /^https?:\/\/[^\s"'<>]+$/i.test(value);
}

export interface PageInput {
  /** The page's title (tabs, history); also its heading unless `heading` is given. */
  title: string;
  heading?: string;
  /** More of the head (already HTML). */
  head?: string;
  /** Relative path from the page to the catalogue folder, e.g. `../` (empty for a page in it). */
  toCatalogue: string;
  /** Relative path from the page to the front page. */
  toFront: string;
  /** Breadcrumb links before the title: [label, href]. */
  crumbs: Array<[string, string]>;
  body: string;
  /** Scripts loaded at the end of the body, relative to the page. */
  scripts?: string[];
}

export function page(input: PageInput): string {
  const { title, heading = title, head = '', toCatalogue, toFront, crumbs, body, scripts = [] } = input;
  const trail = [['Catalogue', toFront] as [string, string], ...crumbs]
    .map(([label, href]) => `<a href="${esc(href)}">${esc(label)}</a>`)
    .join(' <span aria-hidden="true">›</span> ');
  return (
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    `<title>${esc(title)}</title>\n<link rel="stylesheet" href="${toCatalogue}style.css">\n${head}</head>\n<body>\n` +
    `<header class="site">\n<nav aria-label="Breadcrumb" class="crumbs">${trail}</nav>\n` +
    `${searchForm(toFront)}</header>\n` +
    `<main>\n<h1>${esc(heading)}</h1>\n${body}</main>\n` +
    '<footer>A static page of this snapshot: it works from the disk, from any static host and through ' +
    '<code>cv-snapshot serve</code>.</footer>\n' +
    scripts.map((src) => `<script src="${esc(src)}"></script>\n`).join('') +
    '</body>\n</html>\n'
  );
}

/** An ISO time (the snapshot's `createdAt`) as people read it, `2026-11-26 17:30 UTC`, and in a `<time>`. */
export function snapshotTime(iso: string): { text: string; html: string } {
  const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)/.exec(iso);
  const text = match && iso.endsWith('Z') ? `${match[1]} ${match[2]} UTC` : iso;
  return { text, html: `<time datetime="${esc(iso)}">${esc(text)}</time>` };
}

export function statusBadge(status: unknown): string {
  if (typeof status !== 'string' || status === '') return '';
  return badge(status, ['ACCEPTED', 'PENDING']);
}

/** `text` as a badge, coloured (class `badge-<text>`, lower case) when it is one of `coloured`. */
export function badge(text: string, coloured: readonly string[]): string {
  const kind = coloured.includes(text) ? ` badge-${text.toLowerCase()}` : '';
  return `<span class="badge${kind}">${esc(text)}</span>`;
}

/**
 * The columns of each kind of table (its class): on a phone, each cell is shown under its column's name, which the
 * style sheet gives by position, so that no row repeats the names.
 */
export const TABLE_LAYOUTS = {
  collections: ['Collection', 'Records', 'Status'],
  'records-plain': ['Id', 'Term or name', 'Definition', 'Provenance'],
  'records-s': ['Id', 'Term or name', 'Status', 'Definition', 'Provenance'],
  'records-v': ['Id', 'Term or name', 'Community', 'Root', 'Definition', 'Provenance'],
  'records-vs': ['Id', 'Term or name', 'Community', 'Root', 'Status', 'Definition', 'Provenance'],
  rules: ['Rule', 'Errors', 'Warnings'],
  findings: ['Severity', 'Document', 'Where in it', 'Message'],
} as const;
export type Columns = (typeof TABLE_LAYOUTS)[keyof typeof TABLE_LAYOUTS];

const STACKED_LABELS = Object.entries(TABLE_LAYOUTS)
  .flatMap(([table, columns]) =>
    columns.map((column, i) => `  table.${table} td:nth-child(${i + 1})::before { content: "${column}"; }`),
  )
  .join('\n');

export const STYLE = `:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fdfdfc; --muted: #57606a; --line: #d0d7de;
  --link: #0a58ca; --accepted: #1a7f37; --pending: #9a6700; --other: #57606a; --error: #cf222e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9da7b3; --line: #30363d;
  --link: #6cb6ff; --accepted: #3fb950; --pending: #d29922; --other: #9da7b3; --error: #ff7b72; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem; font: 16px/1.5 system-ui, sans-serif; color: var(--fg);
  background: var(--bg); overflow-wrap: break-word; }
a { color: var(--link); }
a:focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
h1 { font-size: 1.6rem; margin: 0.5rem 0 0.5rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
header.site { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.5rem 1rem;
  padding-bottom: 0.5rem; border-bottom: 1px solid var(--line); }
.crumbs { font-size: 0.9rem; color: var(--muted); }
.search { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.5rem; flex: 1 1 20rem;
  max-width: 36rem; }
.search label { font-weight: 600; }
.search input { flex: 1 1 10rem; min-width: 0; font: inherit; padding: 0.3rem 0.4rem; }
.search button { padding: 0.3rem 0.7rem; border: 1px solid var(--line); border-radius: 0.3rem; background: transparent;
  cursor: pointer; }
.search .hint { flex-basis: 100%; font-size: 0.8rem; color: var(--muted); }
.results { padding-left: 1.5rem; }
.results li { margin: 0.4rem 0; }
.results .excerpt { margin: 0; font-size: 0.9rem; color: var(--muted); }
.results a:focus { outline: 3px solid var(--link); outline-offset: 2px; }
.definition { font-size: 1.1rem; margin: 0 0 0.75rem; max-width: 50rem; }
.variant { margin: 0 0 0.75rem; }
time { white-space: nowrap; }
.changed { margin: 0 0 0.75rem; padding-left: 0.6rem; border-left: 3px solid var(--pending); }
.partial { margin: 0.75rem 0; padding-left: 0.6rem; border-left: 3px solid var(--error); }
ul.changes li { margin-bottom: 0.4rem; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 0.35rem 0.5rem; border-bottom: 1px solid var(--line); }
th { font-weight: 600; }
dl { display: grid; grid-template-columns: minmax(8rem, max-content) minmax(0, 1fr); gap: 0.25rem 1rem; }
dt { font-weight: 600; color: var(--muted); }
dd { margin: 0; min-width: 0; }
ul.plain { list-style: none; padding: 0; margin: 0; }
ul.plain li { margin: 0 0 0.25rem; }
.badge { display: inline-block; padding: 0 0.5rem; border-radius: 1rem; font-size: 0.8rem; font-weight: 600;
  border: 1px solid currentColor; color: var(--other); white-space: nowrap; }
.badge-accepted { color: var(--accepted); } .badge-pending { color: var(--pending); }
.badge-error { color: var(--error); } .badge-warning { color: var(--pending); }
.letters { display: flex; flex-wrap: wrap; gap: 0.25rem 0.6rem; margin: 0.5rem 0; }
.letters a { padding: 0.1rem 0.3rem; } .letters a[aria-current] { font-weight: 700; text-decoration: none; }
.pages { margin: 1rem 0; display: flex; gap: 1rem; flex-wrap: wrap; }
footer { margin-top: 3rem; font-size: 0.85rem; color: var(--muted); }
code { font-size: 0.9em; }
.muted { color: var(--muted); }
.api-name { font-weight: 400; }
.variant-row td:first-child { padding-left: 1.5rem; }
.uri { user-select: all; }
pre.json { white-space: pre-wrap; font-size: 0.85rem; padding: 0.5rem; border: 1px solid var(--line);
  border-radius: 0.3rem; }
summary { cursor: pointer; }
button { font: inherit; color: inherit; }
.copy, .more { margin-left: 0.5rem; padding: 0.1rem 0.6rem; border: 1px solid var(--line); border-radius: 0.3rem;
  background: transparent; cursor: pointer; }
.more { margin: 1rem 0; }
th button.sort { padding: 0; border: 0; background: none; font-weight: 600; cursor: pointer; text-align: left; }
th[aria-sort="ascending"] button.sort::after { content: " ▲"; }
th[aria-sort="descending"] button.sort::after { content: " ▼"; }
button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
.table-tools { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.75rem; margin: 0.5rem 0; }
.table-tools input, .table-tools select { font: inherit; padding: 0.3rem; }
.table-tools p { flex-basis: 100%; margin: 0; color: var(--muted); }
@media (max-width: 40rem) { dl { grid-template-columns: minmax(0, 1fr); } dd { margin-bottom: 0.5rem; } }
@media (max-width: 37.5rem) {
  table, tbody, tr, td { display: block; width: 100%; }
  thead tr { display: flex; flex-wrap: wrap; gap: 0 1rem; }
  thead th { border: 0; padding: 0.2rem 0; }
  table.collections thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  tr { border-bottom: 1px solid var(--line); padding: 0.4rem 0; }
  td { border: 0; padding: 0.1rem 0 0.1rem 7.5rem; display: flow-root; }
  td::before { float: left; width: 7rem; margin-left: -7.5rem; font-weight: 600; color: var(--muted); }
  .variant-row td:first-child { padding-left: 0; }
${STACKED_LABELS}
  table.collections td:first-child { padding-left: 0; }
  table.collections td:first-child::before { content: none; }
  table.collections code { white-space: nowrap; }
}
[hidden] { display: none !important; }
.print-only { display: none; }
@media print { header.site, footer, .pages, .letters, .table-tools, .copy, .more, #more-results { display: none; }
  .print-only { display: block; } a { color: inherit; } details > * { display: block; } }
`;
