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

/**
 * Text made safe to put between tags, and only there (never in an attribute): `&`, `<` and `>` escaped. Quotes stay
 * as they are, so a record's JSON shown in a page keeps its size, and most texts pass through a single test.
 */
export function escText(text: string): string {
  if (!/[&<>]/.test(text)) return text;
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
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
  /** The site's title, in every page's header (the user's, `--names`; else SITE_TITLE). */
  site?: string;
  /** The front page, which has no breadcrumb. */
  front?: boolean;
}

/** The catalogue's title when the user gives none. */
export const SITE_TITLE = 'Controlled vocabulary snapshot';

/** The catalogue's icon (a file of the snapshot: a page requests nothing that fails, from the disk or a host). */
export const FAVICON = 'favicon.svg';
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b57d0"/>' +
  '<path d="M9 9h14M9 16h10M9 23h14" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>\n';

export function page(input: PageInput): string {
  const { title, heading = title, head = '', toCatalogue, toFront, crumbs, body, scripts = [] } = input;
  const site = input.site ?? SITE_TITLE;
  const trail =
    input.front === true
      ? ''
      : '<nav aria-label="Breadcrumb" class="crumbs">' +
        [['Catalogue', toFront] as [string, string], ...crumbs]
          .map(([label, href]) => `<a href="${esc(href)}">${esc(label)}</a>`)
          .join(' <span aria-hidden="true">›</span> ') +
        '</nav>\n';
  return (
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    `<title>${esc(title)}</title>\n<link rel="icon" href="${toCatalogue}${FAVICON}" type="image/svg+xml">\n` +
    `<link rel="stylesheet" href="${toCatalogue}style.css">\n${head}</head>\n<body>\n` +
    `<header class="site"><div class="bar">\n<a class="brand" href="${esc(toFront)}">` +
    `<span class="logo" aria-hidden="true"></span>${esc(site)}</a>\n` +
    `${searchForm(toFront)}</div></header>\n` +
    `<main>\n${trail}<h1>${esc(heading)}</h1>\n${body}</main>\n` +
    '<footer><div class="bar">A static page of this snapshot: it works from the disk, from any static host and ' +
    'through <code>cv-snapshot serve</code>.</div></footer>\n' +
    scripts.map((src) => `<script src="${esc(src)}"></script>\n`).join('') +
    '</body>\n</html>\n'
  );
}

/** The SKOS downloads of a collection (written beside its pages: src/export/downloads.ts), by media type. */
const ALTERNATES = [
  ['turtle', 'text/turtle', 'SKOS Turtle'],
  ['jsonld', 'application/ld+json', 'SKOS JSON-LD'],
] as const;

/**
 * `<link rel="alternate">` to a collection's SKOS downloads, for the head of its pages and of its records' pages (the
 * download holds each record's concept), and the same as links for people; `file` gives a download's path from the
 * page.
 */
export function alternates(file: (format: 'turtle' | 'jsonld') => string): { head: string; links: string } {
  return {
    head: ALTERNATES.map(
      ([format, type, label]) => `<link rel="alternate" type="${type}" href="${esc(file(format))}" title="${label}">\n`,
    ).join(''),
    links: ALTERNATES.map(
      ([format, type, label]) => `<a href="${esc(file(format))}" type="${type}" download>${label}</a>`,
    ).join(' · '),
  };
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

export const STYLE = `:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --surface: #f6f8fa;
  --muted: #59636e; --line: #d1d9e0; --link: #0550ae; --accent: #0b57d0; --mark: #fff1a8; --on-accent: #ffffff;
  --accepted: #1a7f37; --pending: #9a6700; --other: #59636e; --error: #cf222e;
  --sans: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  --step-0: 1rem; --step-1: 1.2rem; --step-2: 1.44rem; --step-3: 1.9rem; --small: 0.875rem; --tiny: 0.8rem;
  --space: clamp(1rem, 3vw, 2rem); }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --surface: #161b22; --muted: #9da7b3;
  --line: #30363d; --link: #79b8ff; --accent: #4493f8; --on-accent: #0d1117; --mark: #5c4a00; --accepted: #3fb950;
  --pending: #d29922; --other: #9da7b3; --error: #ff7b72; } }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: var(--step-0)/1.6 var(--sans); color: var(--fg); background: var(--bg);
  overflow-wrap: break-word; }
.bar, main { max-width: 72rem; margin: 0 auto; padding: 0 var(--space); }
main { padding-top: 1.25rem; padding-bottom: 2rem; }
a { color: var(--link); text-underline-offset: 0.15em; }
a:hover { text-decoration-thickness: 2px; }
a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
h1 { font-size: var(--step-3); line-height: 1.2; letter-spacing: -0.01em; margin: 0.25rem 0 0.75rem; }
h2 { font-size: var(--step-2); line-height: 1.3; margin: 2.25rem 0 0.75rem; padding-bottom: 0.3rem;
  border-bottom: 1px solid var(--line); }
h3 { font-size: var(--step-1); margin: 1.5rem 0 0.5rem; }
p { margin: 0 0 0.75rem; }
header.site { border-bottom: 1px solid var(--line); background: var(--surface); }
header.site .bar { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between;
  gap: 0.5rem 1.5rem; padding-top: 0.6rem; padding-bottom: 0.6rem; }
.brand { display: inline-flex; align-items: center; gap: 0.5rem; font-weight: 700; font-size: var(--step-1);
  color: var(--fg); text-decoration: none; }
.logo { flex: none; width: 1.5rem; height: 1.5rem; border-radius: 0.35rem; background: linear-gradient(#fff, #fff)
  0.35rem 0.4rem / 0.8rem 0.15rem no-repeat, linear-gradient(#fff, #fff) 0.35rem 0.68rem / 0.55rem 0.15rem no-repeat,
  linear-gradient(#fff, #fff) 0.35rem 0.96rem / 0.8rem 0.15rem no-repeat, #0b57d0; }
.crumbs { font-size: var(--small); color: var(--muted); margin: 0 0 0.25rem; }
.crumbs a { color: var(--muted); }
.search { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.5rem; flex: 1 1 18rem;
  max-width: 34rem; }
.search input { flex: 1 1 8rem; min-width: 0; font: inherit; padding: 0.4rem 0.7rem; color: inherit;
  background: var(--bg); border: 1px solid var(--line); border-radius: 0.5rem; }
.search button, .clear-search { flex: none; padding: 0.4rem 0.9rem; border: 1px solid var(--accent);
  border-radius: 0.5rem; background: var(--accent); color: var(--on-accent); cursor: pointer; font-weight: 600; }
.sr-only, .search label { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
.search .hint { flex-basis: 100%; font-size: var(--tiny); color: var(--muted); }
.intro { font-size: var(--step-1); max-width: 46rem; color: var(--muted); }
.results { list-style: none; padding: 0; margin: 0.5rem 0; }
/* A result below the screen is laid out when it is scrolled to: a keystroke lays out the few that show. */
.results li { padding: 0.6rem 0; border-bottom: 1px solid var(--line); content-visibility: auto;
  contain-intrinsic-size: auto 4.5rem; }
.results li > a { font-weight: 600; font-size: 1.05rem; }
.results .excerpt { margin: 0.1rem 0 0; font-size: var(--small); color: var(--muted); }
.results a:focus { outline: 3px solid var(--accent); outline-offset: 2px; }
mark { background: var(--mark); color: inherit; border-radius: 0.15rem; }
.search-view { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 2rem; }
@media (min-width: 56rem) { .search-view { grid-template-columns: 14rem minmax(0, 1fr); } }
.facets fieldset { border: 0; margin: 0 0 1rem; padding: 0; min-width: 0; }
.facets legend { font-weight: 700; font-size: var(--small); text-transform: uppercase; letter-spacing: 0.04em;
  color: var(--muted); margin-bottom: 0.25rem; }
.facets label { display: flex; gap: 0.4rem; align-items: baseline; font-size: var(--small); padding: 0.1rem 0; }
.facets .count { margin-left: auto; color: var(--muted); }
.did-you-mean { font-size: 1.05rem; }
.results-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 1rem; }
.results-head h2 { border: 0; margin: 0.5rem 0; padding: 0; }
.definition { font-size: var(--step-1); margin: 0 0 0.75rem; max-width: 48rem; }
.variant { margin: 0 0 0.75rem; }
.kind { color: var(--muted); font-size: var(--small); }
.kind a { color: var(--muted); }
time { white-space: nowrap; }
.changed, .replaced, .removed { margin: 0 0 1rem; padding: 0.6rem 0.9rem; border-left: 4px solid var(--pending);
  background: var(--surface); border-radius: 0 0.4rem 0.4rem 0; }
.removed { border-left-color: var(--error); }
.edit { display: block; margin-left: 1rem; overflow-wrap: anywhere; }
del { text-decoration: line-through; color: var(--muted); }
ins { text-decoration: none; font-weight: 600; }
.partial { margin: 0.75rem 0; padding: 0.6rem 0.9rem; border-left: 4px solid var(--error); background: var(--surface); }
ul.changes li { margin-bottom: 0.4rem; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
th, td { text-align: left; vertical-align: top; padding: 0.5rem 0.6rem; border-bottom: 1px solid var(--line); }
thead th { font-weight: 600; font-size: var(--small); color: var(--muted); border-bottom-width: 2px; }
tbody tr:hover { background: var(--surface); }
dl { display: grid; grid-template-columns: minmax(8rem, max-content) minmax(0, 1fr); gap: 0.35rem 1.25rem;
  margin: 0 0 1rem; }
dt { font-weight: 600; color: var(--muted); }
dd { margin: 0; min-width: 0; }
ul.plain { list-style: none; padding: 0; margin: 0; }
ul.plain li { margin: 0 0 0.25rem; }
.badge { display: inline-block; padding: 0 0.55rem; border-radius: 1rem; font-size: var(--tiny); font-weight: 600;
  line-height: 1.6; border: 1px solid currentColor; color: var(--other); white-space: nowrap; vertical-align: 0.1em; }
.badge-accepted { color: var(--accepted); } .badge-pending { color: var(--pending); }
.badge-error { color: var(--error); } .badge-warning { color: var(--pending); }
.letters { display: flex; flex-wrap: wrap; gap: 0.25rem 0.4rem; margin: 0.75rem 0; }
.letters a { padding: 0.1rem 0.45rem; border-radius: 0.3rem; }
.letters a[aria-current] { font-weight: 700; text-decoration: none; background: var(--surface); }
.pages { margin: 1rem 0; display: flex; gap: 1rem; flex-wrap: wrap; }
footer { border-top: 1px solid var(--line); margin-top: 2rem; padding: 1rem 0 2rem; font-size: var(--small);
  color: var(--muted); }
code, pre { font-family: var(--mono); font-size: 0.875em; }
.muted { color: var(--muted); }
.api-name { font-weight: 400; font-size: var(--tiny); color: var(--muted); }
.uri { user-select: all; }
pre.json { white-space: pre-wrap; padding: 0.75rem; background: var(--surface); border: 1px solid var(--line);
  border-radius: 0.4rem; }
summary { cursor: pointer; }
details.cite { margin: 1.5rem 0 0; }
details.cite > summary { font-weight: 600; }
.more-targets summary { font-size: var(--small); color: var(--muted); width: max-content; }
button { font: inherit; color: inherit; }
.copy, .more { margin-left: 0.5rem; padding: 0.1rem 0.6rem; border: 1px solid var(--line); border-radius: 0.4rem;
  background: var(--bg); cursor: pointer; font-size: var(--small); }
.more { margin: 1rem 0; }
th button.sort { padding: 0; border: 0; background: none; font-weight: 600; cursor: pointer; text-align: left;
  color: inherit; }
th[aria-sort="ascending"] button.sort::after { content: " ▲"; }
th[aria-sort="descending"] button.sort::after { content: " ▼"; }
button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid var(--accent);
  outline-offset: 2px; }
.table-tools { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.75rem; margin: 0.5rem 0; }
.table-tools input, .table-tools select { font: inherit; padding: 0.3rem 0.5rem; border: 1px solid var(--line);
  border-radius: 0.4rem; background: var(--bg); color: inherit; }
.table-tools p { flex-basis: 100%; margin: 0; color: var(--muted); }
.vocabularies { list-style: none; padding: 0; margin: 0 0 1rem; display: grid; gap: 0.75rem;
  grid-template-columns: repeat(auto-fill, minmax(min(100%, 21rem), 1fr)); }
.vocabularies > li { border: 1px solid var(--line); border-radius: 0.6rem; padding: 0.7rem 0.9rem; }
.vocabularies h3 { margin: 0; font-size: 1.05rem; }
.vocabularies p { margin: 0.15rem 0 0; font-size: var(--small); color: var(--muted); }
.vocabularies details { margin-top: 0.3rem; font-size: var(--small); }
.vocabularies details ul { margin: 0.25rem 0 0; padding-left: 1.1rem; }
aside.about { margin-top: 2.5rem; padding: 0.9rem 1.1rem; background: var(--surface); border-radius: 0.6rem;
  font-size: var(--small); }
aside.about h2 { font-size: var(--step-0); border: 0; margin: 0 0 0.4rem; padding: 0; }
aside.about dl { grid-template-columns: minmax(7rem, max-content) minmax(0, 1fr); margin: 0; gap: 0.1rem 1rem; }
.downloads { font-size: var(--small); }
.rule-code { font-size: var(--tiny); color: var(--muted); font-weight: 400; }
table.findings td:nth-child(2) { overflow-wrap: anywhere; }
table.findings col.severity { width: 6rem; } table.findings col.document { width: 34%; }
table.findings col.where { width: 16%; }
table.findings td:nth-child(3) code { overflow-wrap: anywhere; }
.tree ul { list-style: none; margin: 0; padding-left: 1.25rem; }
.tree > ul { padding-left: 0; }
.tree li { margin: 0.15rem 0; }
.tree summary { font-size: var(--small); color: var(--muted); width: max-content; }
@media (max-width: 40rem) {
  dl { display: block; }
  dt { float: left; clear: left; margin-right: 0.5rem; }
  dd { margin: 0 0 0.3rem; }
  h2 { font-size: var(--step-1); margin: 1.25rem 0 0.4rem; padding-bottom: 0.15rem; }
  main { padding-bottom: 1rem; }
  footer { margin-top: 1rem; padding: 0.6rem 0 1rem; }
}
@media (max-width: 37.5rem) {
  h1 { font-size: var(--step-2); }
  header.site .bar { padding-top: 0.5rem; padding-bottom: 0.5rem; }
  .brand { font-size: var(--step-0); }
  .search { flex-basis: 100%; flex-wrap: nowrap; max-width: none; }
  .search .hint { display: none; }
  table, tbody, tr, td { display: block; width: 100%; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .sorting thead { position: static; width: auto; height: auto; overflow: visible; clip: auto; display: block; }
  .sorting thead tr { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 0.5rem;
    font-size: var(--small); }
  .sorting thead tr::before { content: "Sort by"; color: var(--muted); }
  .sorting thead th { display: block; border: 1px solid var(--line); border-radius: 1rem; padding: 0 0.6rem; }
  tbody tr:hover { background: none; }
  tr { border-bottom: 1px solid var(--line); padding: 0.5rem 0; }
  td { border: 0; padding: 0.1rem 0 0.1rem 7.5rem; display: flow-root; }
  td:empty { display: none; }
  td::before { float: left; width: 7rem; margin-left: -7.5rem; font-weight: 600; color: var(--muted);
    font-size: var(--small); }
${STACKED_LABELS}
  table.collections td:first-child, table.records td:nth-child(2), table.rules td:first-child { padding-left: 0; }
  table.records td:nth-child(2) { font-weight: 600; }
  table.collections td:first-child::before, table.records td:nth-child(2)::before,
  table.rules td:first-child::before { content: none; }
  table.records tbody tr { display: flex; flex-direction: column; }
  table.records td:nth-child(2) { order: -1; }
  table.collections code { white-space: nowrap; }
}
[hidden] { display: none !important; }
.print-only { display: none; }
@media print { header.site, footer, .pages, .letters, .table-tools, .copy, .more, #more-results, .facets,
  .clear-search { display: none; }
  .print-only { display: block; } a { color: inherit; } details > * { display: block; } }
`;
