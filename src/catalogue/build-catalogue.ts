/**
 * The catalogue for people (docs/catalogue.md): a front page at the tree's top-level `index.html` and, under
 * `_catalogue/`, a page per collection (paginated) and per record, built from the snapshot's own list pages in two
 * passes (first the names and reverse links of every record, then the pages), one list page in memory at a time.
 * Deterministic: collections by name, records in the source's order, no time but the snapshot's `createdAt`.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOGUE_DIR, INDEX_FILE, type Layout } from '../format/layout.js';
import type { TreeWriter } from '../store/writer.js';
import { esc, isWebUrl, page, STYLE, statusBadge } from './html.js';
import { indexEntry, SEARCH_FORM, SEARCH_SCRIPT, searchIndexParts as indexScriptParts } from './search.js';
import { PAGE_SCRIPT, rowEntry, rowsScript, TABLE_TOOLS } from './page-script.js';
import { CatalogueRecords } from './records.js';

const FRONT_PAGE = INDEX_FILE;
/** Rows per collection page: a page stays light in any browser, whatever the collection's size. */
const ROWS_PER_PAGE = 500;

export interface CatalogueInput {
  layout: Layout;
  writer: TreeWriter;
  /** Every collection with its stored list page files, in page order. */
  collections: Array<[string, string[]]>;
  about: { root: string; createdAt: string; tool: string; errors: number; warnings: number };
}

interface Resource {
  type?: unknown;
  id?: unknown;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: unknown }>;
}

/** A file name for a collection or a record id: the name itself when plainly safe, else a stable digest. */
function fileName(name: string): string {
  return /^[A-Za-z0-9_-]{1,100}$/.test(name)
    ? name
    : `x-${createHash('sha256').update(name).digest('hex').slice(0, 20)}`;
}

function recordPage(collection: string, id: string): string {
  return `${CATALOGUE_DIR}/${fileName(collection)}/r-${fileName(id)}.html`;
}

function collectionPage(collection: string, n: number): string {
  return `${CATALOGUE_DIR}/${fileName(collection)}/page-${n}.html`;
}

/**
 * The catalogue file for the root (no collection), a collection's first page, or a record, where a snapshot of
 * `layout` has a catalogue at all (it may have been left out: check the file exists).
 */
export function catalogueFileOf(layout: Layout, of: { collection?: string; id?: string }): string | null {
  if (layout.rootSegments().length === 0) return null;
  if (of.collection === undefined) return FRONT_PAGE;
  return of.id === undefined ? collectionPage(of.collection, 1) : recordPage(of.collection, of.id);
}

function labelOf(resource: Resource, id: string): string {
  const a = resource.attributes ?? {};
  for (const key of ['term', 'name', 'title', 'display_name']) {
    const value = a[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return id;
}

function excerpt(value: unknown, max = 160): string {
  if (typeof value !== 'string') return '';
  const text = value.replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function humanName(attribute: string): string {
  const words = attribute.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function linkages(data: unknown): Array<{ type: string; id: string }> {
  const items = Array.isArray(data) ? data : data === null || data === undefined ? [] : [data];
  return items.flatMap((item) => {
    const { type, id } = (item ?? {}) as { type?: unknown; id?: unknown };
    return typeof type === 'string' && typeof id === 'string' ? [{ type, id }] : [];
  });
}

/** Builds the catalogue into the staged tree; returns the number of pages, or null when the layout has no room. */
export function buildCatalogue(input: CatalogueInput): number | null {
  const { layout, writer, collections } = input;
  // A source served at its host's root has its root document at index.html: the catalogue would share its paths.
  if (layout.rootSegments().length === 0) return null;
  const readPage = (file: string): Resource[] => {
    const doc = JSON.parse(readFileSync(path.join(writer.dir, file), 'utf8')) as { data?: unknown };
    return Array.isArray(doc.data) ? (doc.data as Resource[]) : [];
  };
  // Pass 1: where each record lives, what it is called, who points at it.
  const records = new CatalogueRecords();
  const counts = new Map<string, { records: number; statuses: Map<string, number> }>();
  for (const [collection, files] of collections) {
    const count = { records: 0, statuses: new Map<string, number>() };
    counts.set(collection, count);
    for (const file of files) {
      for (const resource of readPage(file)) {
        if (typeof resource.type !== 'string' || typeof resource.id !== 'string') continue;
        count.records++;
        const status = resource.attributes?.status;
        if (typeof status === 'string') count.statuses.set(status, (count.statuses.get(status) ?? 0) + 1);
        const self = records.add(resource.type, resource.id, collection, labelOf(resource, resource.id));
        for (const [name, relationship] of Object.entries(resource.relationships ?? {})) {
          for (const target of linkages(relationship.data)) records.addReference(target.type, target.id, self, name);
        }
      }
    }
  }

  let pages = 0;
  const write = (file: string, html: string) => {
    writer.write(file, html);
    pages++;
  };
  writer.write(`${CATALOGUE_DIR}/style.css`, STYLE);
  writer.write(`${CATALOGUE_DIR}/search.js`, SEARCH_SCRIPT);
  writer.write(`${CATALOGUE_DIR}/catalogue.js`, PAGE_SCRIPT);
  const fromRecord = '../../';
  const linkTo = (target: string, from = fromRecord) => from + target;

  // Pass 2: collection pages and record pages.
  for (const [collection, files] of collections) {
    const total = counts.get(collection)!.records;
    const pageCount = Math.max(1, Math.ceil(total / ROWS_PER_PAGE));
    let rows: string[] = [];
    const data: string[] = [];
    let n = 1;
    const flush = () => {
      const nav =
        pageCount > 1
          ? `<nav class="pages" aria-label="Pages">` +
            (n > 1 ? `<a rel="prev" href="page-${n - 1}.html">Previous page</a>` : '') +
            `<span>Page ${n} of ${pageCount}</span>` +
            (n < pageCount ? `<a rel="next" href="page-${n + 1}.html">Next page</a>` : '') +
            '</nav>\n'
          : '';
      const table =
        rows.length === 0
          ? '<p>This collection holds no records.</p>\n'
          : TABLE_TOOLS +
            '<div class="table-wrap"><table class="records">\n<thead><tr><th scope="col">Id</th>' +
            '<th scope="col">Term or name</th><th scope="col">Status</th><th scope="col">Definition</th>' +
            '<th scope="col">Provenance</th></tr></thead>\n' +
            `<tbody>\n${rows.join('')}</tbody>\n</table></div>\n`;
      write(
        collectionPage(collection, n),
        page({
          title: pageCount > 1 ? `${collection} (page ${n} of ${pageCount})` : collection,
          toCatalogue: '../',
          toFront: linkTo(FRONT_PAGE),
          crumbs: [],
          body: `<p>${total} records.</p>\n${nav}${table}${nav}`,
          scripts: rows.length === 0 ? [] : ['rows.js', '../catalogue.js'],
        }),
      );
      rows = [];
      n++;
    };
    for (const file of files) {
      for (const resource of readPage(file)) {
        if (typeof resource.type !== 'string' || typeof resource.id !== 'string') continue;
        const id = resource.id;
        const a = resource.attributes ?? {};
        const label = labelOf(resource, id);
        const listedOn = n;
        const owner = records.find(resource.type, id)?.collection ?? collection;
        const href = owner === collection ? `r-${fileName(id)}.html` : `../${fileName(owner)}/r-${fileName(id)}.html`;
        const row = {
          id,
          label,
          status: typeof a.status === 'string' ? a.status : '',
          definition: excerpt(a.definition ?? a.description),
          provenance: excerpt(a.provenance, 80),
          page: href,
        };
        data.push(rowEntry(row));
        rows.push(
          `<tr><td>${esc(id)}</td><td><a href="${href}">${esc(label)}</a></td>` +
            `<td>${statusBadge(a.status)}</td><td>${esc(row.definition)}</td><td>${esc(row.provenance)}</td></tr>\n`,
        );
        if (rows.length === ROWS_PER_PAGE) flush();
        // A record listed twice (in two collections, or twice in one) gets one page, where it was first seen.
        if (!records.takePage(resource.type, id, collection)) continue;
        write(
          recordPage(collection, id),
          recordHtml({
            collection,
            id,
            resource,
            label,
            layout,
            writer,
            records,
            n: listedOn,
            linkTo,
          }),
        );
      }
    }
    if (rows.length > 0 || n === 1) flush();
    if (data.length > 0) writer.writeParts(`${CATALOGUE_DIR}/${fileName(collection)}/rows.js`, rowsScript(data));
  }

  // Pass 3: the search index, streamed from the list pages once more rather than held in memory.
  writer.writeParts(`${CATALOGUE_DIR}/search-index.js`, searchIndexParts(collections, readPage, records));
  write(FRONT_PAGE, frontHtml(input, counts));
  return pages;
}

/**
 * The search index's text, one entry per record page, in the order of the pages (a record listed twice gets one
 * entry).
 */
function* searchIndexParts(
  collections: CatalogueInput['collections'],
  readPage: (file: string) => Resource[],
  records: CatalogueRecords,
): Generator<string> {
  function* entries(): Generator<string> {
    for (const [collection, files] of collections) {
      for (const file of files) {
        for (const resource of readPage(file)) {
          if (typeof resource.type !== 'string' || typeof resource.id !== 'string') continue;
          if (!records.takeSearchEntry(resource.type, resource.id, collection)) continue;
          const a = resource.attributes ?? {};
          const searchable = Object.entries(a)
            .filter(([name, v]) => typeof v === 'string' && v !== '' && !/(_uri|_url|email)$/.test(name))
            .map(([, v]) => v as string)
            .join(' ');
          const status = typeof a.status === 'string' ? a.status : '';
          yield indexEntry(
            recordPage(collection, resource.id),
            labelOf(resource, resource.id),
            status,
            collection,
            searchable,
          );
        }
      }
    }
  }
  yield* indexScriptParts(entries());
}

interface RecordContext {
  collection: string;
  id: string;
  resource: Resource;
  label: string;
  layout: Layout;
  writer: TreeWriter;
  records: CatalogueRecords;
  /** The collection page that lists the record. */
  n: number;
  linkTo: (target: string) => string;
}

function recordHtml(c: RecordContext): string {
  const { resource, layout, writer, records } = c;
  const a = resource.attributes ?? {};
  const sourceUrl = `${layout.collectionUrl(c.collection)}${encodeURIComponent(c.id)}/`;
  const place = layout.place(sourceUrl);
  const json = place.ok && existsSync(path.join(writer.dir, place.file)) ? place.file : null;
  /** The linkage of a stored relationship document (`{"data": …}`), or undefined when there is none. */
  const storedLinkage = (url: string): unknown => {
    const stored = layout.place(url);
    if (!stored.ok) return undefined;
    try {
      const doc = JSON.parse(readFileSync(path.join(writer.dir, stored.file), 'utf8')) as { data?: unknown };
      return 'data' in doc ? doc.data : undefined;
    } catch {
      return undefined;
    }
  };
  const value = (v: unknown): string => {
    if (v === null || v === undefined || v === '') return '<span class="muted">—</span>';
    if (isWebUrl(v)) return `<a href="${esc(v)}">${esc(v)}</a>`;
    if (typeof v === 'string') return esc(v);
    return `<code>${esc(JSON.stringify(v))}</code>`;
  };
  const attributes = Object.entries(a)
    .map(
      ([name, v]) =>
        `<dt>${esc(humanName(name))}</dt><dd>${name === 'status' ? statusBadge(v) || value(v) : value(v)}</dd>`,
    )
    .join('\n');
  const recordLink = (target: { type: string; id: string }): string => {
    const found = records.find(target.type, target.id);
    return found
      ? `<a href="${c.linkTo(recordPage(found.collection, target.id))}">${esc(found.label)}</a> ` +
          `<span class="muted">(${esc(found.collection)} ${esc(target.id)})</span>`
      : `${esc(target.type)} ${esc(target.id)} <span class="muted">(not in this snapshot's lists)</span>`;
  };
  const relationships = Object.entries(resource.relationships ?? {})
    .map(([name, relationship]) => {
      let shown: string;
      // The list entry gives some relationships as links only; the snapshot holds their documents.
      const data = 'data' in relationship ? relationship.data : storedLinkage(`${sourceUrl}relationships/${name}`);
      if (data === undefined) {
        shown = '<span class="muted">given by the source as a link only</span>';
      } else {
        const targets = linkages(data);
        shown =
          targets.length === 0
            ? '<span class="muted">none</span>'
            : `<ul>${targets.map((t) => `<li>${recordLink(t)}</li>`).join('')}</ul>`;
      }
      return `<dt>${esc(humanName(name))}</dt><dd>${shown}</dd>`;
    })
    .join('\n');
  const reverse = records
    .referrers(String(resource.type), c.id)
    .map(({ type, id, relationship }) => {
      return `<li>${recordLink({ type, id })} <span class="muted">as ${esc(humanName(relationship))}</span></li>`;
    })
    .join('');
  const body =
    `<p>${statusBadge(a.status)} ${esc(String(resource.type))} ${esc(c.id)} in ` +
    `<a href="page-${c.n}.html">${esc(c.collection)}</a></p>\n` +
    `<dl>\n<dt>URI</dt><dd><code class="uri">${esc(sourceUrl)}</code></dd>\n` +
    (json
      ? `<dt>JSON</dt><dd><a href="${esc(c.linkTo(json.split('/').map(encodeURIComponent).join('/')))}">` +
        'the document in this snapshot</a></dd>\n'
      : '') +
    `${attributes}\n</dl>\n` +
    (relationships ? `<h2>Relationships</h2>\n<dl>\n${relationships}\n</dl>\n` : '') +
    (reverse ? `<h2>Referenced by</h2>\n<ul>${reverse}</ul>\n` : '');
  return page({
    title: c.label,
    toCatalogue: '../',
    toFront: c.linkTo(FRONT_PAGE),
    crumbs: [[c.collection, `page-${c.n}.html`]],
    body,
    scripts: ['../catalogue.js'],
  });
}

function frontHtml(
  { about, collections }: CatalogueInput,
  counts: Map<string, { records: number; statuses: Map<string, number> }>,
): string {
  const rows = collections
    .map(([collection]) => {
      const count = counts.get(collection)!;
      return (
        `<tr><td><a href="${collectionPage(collection, 1)}">${esc(collection)}</a></td><td>${count.records}</td>` +
        `<td>${count.statuses.get('ACCEPTED') ?? 0}</td><td>${count.statuses.get('PENDING') ?? 0}</td></tr>\n`
      );
    })
    .join('');
  const body =
    `<dl>\n<dt>Source</dt><dd><code>${esc(about.root)}</code></dd>\n` +
    `<dt>Snapshot taken</dt><dd>${esc(about.createdAt)}</dd>\n<dt>Made by</dt><dd>${esc(about.tool)}</dd>\n` +
    `<dt>Validation</dt><dd>${about.errors} errors, ${about.warnings} warnings</dd>\n</dl>\n` +
    SEARCH_FORM +
    '<h2>Collections</h2>\n<div class="table-wrap"><table>\n<thead><tr><th scope="col">Collection</th>' +
    '<th scope="col">Records</th><th scope="col">Accepted</th><th scope="col">Pending</th></tr></thead>\n' +
    `<tbody>\n${rows}</tbody>\n</table></div>\n` +
    `<script src="${CATALOGUE_DIR}/search-index.js"></script>\n<script src="${CATALOGUE_DIR}/search.js"></script>\n`;
  return page({
    title: 'Controlled vocabulary snapshot',
    toCatalogue: `${CATALOGUE_DIR}/`,
    toFront: FRONT_PAGE,
    crumbs: [],
    body,
  });
}
