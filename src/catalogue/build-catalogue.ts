/**
 * The catalogue for people (docs/catalogue.md): a front page at the tree's top-level `index.html` and, under
 * `_catalogue/`, a page per collection (paginated) and per record, built from the snapshot's own list pages in two
 * passes (first the names and reverse links of every record, then the pages), one list page in memory at a time.
 * Deterministic: collections by name, records in the source's order, no time but the snapshot's `createdAt`.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { CATALOGUE_DIR, INDEX_FILE, type Layout } from '../format/layout.js';
import type { TreeWriter } from '../store/writer.js';
import { esc, isWebUrl, page, STYLE, statusBadge } from './html.js';
import { indexEntry, SEARCH_FORM, SEARCH_SCRIPT, searchIndexParts as indexScriptParts } from './search.js';
import { claimTag, collectionFolder, collectionPage, recordPage } from './names.js';
import { PAGE_SCRIPT, rowEntry, rowsScript, TABLE_TOOLS } from './page-script.js';
import { CatalogueRecords } from './records.js';
import { isObject, linkages, listRecords, type Resource } from './resource.js';

const FRONT_PAGE = INDEX_FILE;
/** Rows per collection page: a page stays light in any browser, whatever the collection's size. */
const ROWS_PER_PAGE = 500;

export interface CatalogueInput {
  layout: Layout;
  writer: TreeWriter;
  /** Every collection with its stored list page files, in page order. */
  collections: Array<[string, string[]]>;
  /** How the snapshot wrote its links: the prefix of a rewritten link (`/`, the base URL), null for `original`. */
  linkPrefix: string | null;
  about: { root: string; createdAt: string; tool: string; errors: number; warnings: number };
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
  const a = resource.attributes;
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

interface Counts {
  records: number;
  /** List entries that are not records (no type or id), which no page shows. */
  skipped: number;
  statuses: Map<string, number>;
}

function skippedNote(skipped: number): string {
  if (skipped === 0) return '';
  return (
    ` ${skipped} ${skipped === 1 ? 'entry' : 'entries'} of its lists ${skipped === 1 ? 'is' : 'are'} not a record ` +
    '(no type or id) and not shown: see the validation report.'
  );
}

/** A record page's href from a page in `collection`'s folder. */
function fromCollection(collection: string, recordFile: string): string {
  const folder = `${collectionFolder(collection)}/`;
  if (recordFile.startsWith(folder)) return recordFile.slice(folder.length);
  return `../${recordFile.slice(CATALOGUE_DIR.length + 1)}`;
}

/** Builds the catalogue into the staged tree; returns the number of pages, or null when the layout has no room. */
export function buildCatalogue(input: CatalogueInput): number | null {
  const { layout, writer, collections } = input;
  // A source served at its host's root has its root document at index.html: the catalogue would share its paths.
  if (layout.rootSegments().length === 0) return null;
  /** A list page's records (what is not a record is left out; the crawl reported it). */
  const readList = (file: string) => {
    try {
      return listRecords(readFileSync(path.join(writer.dir, file), 'utf8'));
    } catch {
      return { records: [], skipped: 0 };
    }
  };
  const readPage = (file: string): Resource[] => readList(file).records;
  // Pass 1: where each record lives, what it is called, who points at it.
  const records = new CatalogueRecords();
  const counts = new Map<string, Counts>();
  for (const [collection, files] of collections) {
    const count: Counts = { records: 0, skipped: 0, statuses: new Map<string, number>() };
    counts.set(collection, count);
    for (const file of files) {
      const list = readList(file);
      count.skipped += list.skipped;
      for (const resource of list.records) {
        count.records++;
        const status = resource.attributes.status;
        if (typeof status === 'string') count.statuses.set(status, (count.statuses.get(status) ?? 0) + 1);
        const self = records.add(resource.type, resource.id, collection, labelOf(resource, resource.id));
        for (const [name, relationship] of Object.entries(resource.relationships)) {
          if (!isObject(relationship)) continue;
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
    const { records: total, skipped } = counts.get(collection)!;
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
          body: `<p>${total} records.${skippedNote(skipped)}</p>\n${nav}${table}${nav}`,
          scripts: rows.length === 0 ? [] : ['rows.js', '../catalogue.js'],
        }),
      );
      rows = [];
      n++;
    };
    for (const file of files) {
      for (const resource of readPage(file)) {
        const id = resource.id;
        const a = resource.attributes;
        const label = labelOf(resource, id);
        const listedOn = n;
        const recordFile = records.find(resource.type, id)!.page;
        const href = fromCollection(collection, recordFile);
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
          recordFile,
          recordHtml({
            collection,
            id,
            resource,
            label,
            layout,
            linkPrefix: input.linkPrefix,
            writer,
            records,
            n: listedOn,
            linkTo,
          }),
        );
      }
    }
    if (rows.length > 0 || n === 1) flush();
    if (data.length > 0) writer.writeParts(`${collectionFolder(collection)}/rows.js`, rowsScript(data));
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
          if (!records.takeSearchEntry(resource.type, resource.id, collection)) continue;
          const a = resource.attributes;
          const searchable = Object.entries(a)
            .filter(([name, v]) => typeof v === 'string' && v !== '' && !/(_uri|_url|email)$/.test(name))
            .map(([, v]) => v as string)
            .join(' ');
          const status = typeof a.status === 'string' ? a.status : '';
          yield indexEntry(
            records.find(resource.type, resource.id)!.page,
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

/** The source URL a stored link stands for (links are rewritten as the snapshot was asked to), or null. */
function sourceUrlOf(link: string, layout: Layout, prefix: string | null): string | null {
  let url = link;
  if (prefix !== null && link.startsWith(prefix)) {
    try {
      url = layout.sourceUrlOfServedPath(`/${link.slice(prefix.length)}`);
    } catch {
      return null;
    }
  }
  return isWebUrl(url) ? url : null;
}

interface RecordContext {
  collection: string;
  id: string;
  resource: Resource;
  label: string;
  layout: Layout;
  linkPrefix: string | null;
  writer: TreeWriter;
  records: CatalogueRecords;
  /** The collection page that lists the record. */
  n: number;
  linkTo: (target: string) => string;
}

/** Above this size a stored document is not shown in its record's page (its file is named instead). */
const MAX_SHOWN_JSON = 256 * 1024;

/** The stored document of the first of `urls` that the snapshot holds: its file and its parsed value. */
function storedDocument(layout: Layout, writer: TreeWriter, urls: string[]): { file: string; doc: unknown } | null {
  for (const url of urls) {
    let stored;
    try {
      stored = layout.place(url);
    } catch {
      continue; // not a URL (a source's link may be anything)
    }
    if (!stored.ok) continue;
    const file = path.join(writer.dir, stored.file);
    try {
      if (statSync(file).size > MAX_SHOWN_JSON) return { file: stored.file, doc: undefined };
      return { file: stored.file, doc: JSON.parse(readFileSync(file, 'utf8')) as unknown };
    } catch {
      continue;
    }
  }
  return null;
}

/**
 * The record's JSON, shown in its page as text: the stored document (indented for reading), or the list entry when
 * the snapshot holds no document for the record. Never a link to the stored `index.html`, which a host that does not
 * apply `_headers` (or a browser opening the disk) would hand to the browser as an HTML page (docs/catalogue.md).
 */
function jsonSection(stored: { file: string; doc: unknown } | null, resource: Resource, collection: string): string {
  const where =
    stored === null
      ? `The entry as ${esc(collection)}'s list gives it (the snapshot holds no document of its own for it).`
      : `The document as this snapshot holds it in <code>${esc(stored.file)}</code>, indented for reading.`;
  const shown =
    stored !== null && stored.doc === undefined
      ? `<p>It is larger than ${MAX_SHOWN_JSON / 1024} kB: open that file in a text editor.</p>\n`
      : `<pre class="json">${esc(JSON.stringify(stored === null ? resource.listed : stored.doc, null, 2))}</pre>\n`;
  return `<h2 id="json">JSON</h2>\n<details>\n<summary>Show the JSON</summary>\n<p>${where}</p>\n${shown}</details>\n`;
}

function recordHtml(c: RecordContext): string {
  const { resource, layout, writer, records } = c;
  const a = resource.attributes;
  // The record's own URI (links.self), as clients store it; built from the collection's only where it gives none.
  const builtUrl = `${layout.collectionUrl(c.collection)}${encodeURIComponent(c.id)}/`;
  const self = resource.self === null ? null : sourceUrlOf(resource.self, layout, c.linkPrefix);
  const uri = self ?? builtUrl;
  const stored = storedDocument(layout, writer, self === null ? [builtUrl] : [self, builtUrl]);
  /** The linkage of a stored relationship document (`{"data": …}`), or undefined when there is none. */
  const storedLinkage = (urls: string[]): unknown => {
    const found = storedDocument(layout, writer, urls);
    return isObject(found?.doc) && 'data' in found.doc ? found.doc.data : undefined;
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
      ? `<a href="${c.linkTo(found.page)}">${esc(found.label)}</a> ` +
          `<span class="muted">(${esc(found.collection)} ${esc(target.id)})</span>`
      : `${esc(target.type)} ${esc(target.id)} <span class="muted">(not in this snapshot's lists)</span>`;
  };
  const relationships = Object.entries(resource.relationships)
    .map(([name, relationship]) => {
      if (!isObject(relationship)) {
        const given = `<code>${esc(JSON.stringify(relationship) ?? '')}</code>`;
        return `<dt>${esc(humanName(name))}</dt><dd><span class="muted">not a relationship:</span> ${given}</dd>`;
      }
      let shown: string;
      // The list entry gives some relationships as links only; the snapshot holds their documents.
      const links = isObject(relationship.links) ? relationship.links : {};
      const ownUrl = typeof links.self === 'string' ? sourceUrlOf(links.self, layout, c.linkPrefix) : null;
      const own = ownUrl === null ? [] : [ownUrl];
      const data =
        'data' in relationship
          ? relationship.data
          : storedLinkage([...own, `${uri}relationships/${name}`, `${builtUrl}relationships/${name}`]);
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
    .referrers(resource.type, c.id)
    .map(({ type, id, relationship }) => {
      return `<li>${recordLink({ type, id })} <span class="muted">as ${esc(humanName(relationship))}</span></li>`;
    })
    .join('');
  const body =
    `<p>${statusBadge(a.status)} ${esc(resource.type)} ${esc(c.id)} in ` +
    `<a href="page-${c.n}.html">${esc(c.collection)}</a></p>\n` +
    `<dl>\n<dt>URI</dt><dd><code class="uri">${esc(uri)}</code></dd>\n` +
    '<dt>JSON</dt><dd><a href="#json">below</a></dd>\n' +
    `${attributes}\n</dl>\n` +
    (relationships ? `<h2>Relationships</h2>\n<dl>\n${relationships}\n</dl>\n` : '') +
    (reverse ? `<h2>Referenced by</h2>\n<ul>${reverse}</ul>\n` : '') +
    jsonSection(stored, resource, c.collection);
  return page({
    title: c.label,
    head: claimTag({ collection: c.collection, type: resource.type, id: c.id, uri }, esc),
    toCatalogue: '../',
    toFront: c.linkTo(FRONT_PAGE),
    crumbs: [[c.collection, `page-${c.n}.html`]],
    body,
    scripts: ['../catalogue.js'],
  });
}

function frontHtml({ about, collections }: CatalogueInput, counts: Map<string, Counts>): string {
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
