/**
 * The catalogue's second pass (build-catalogue.ts): each collection's pages, 500 rows each, its rows script, the
 * pages of the records it keeps, each record's entry in the search index, and the collection's downloads.
 */
import path from 'node:path';
import { CATALOGUE_DIR } from '../format/layout.js';
import { CollectionDownloads, downloadFile } from '../export/downloads.js';
import { exportSource } from '../export/export-source.js';
import type { ExportFormat } from '../export/export-snapshot.js';
import { alternates, type Columns, esc, page, statusBadge, TABLE_LAYOUTS } from './html.js';
import { treeItem, treeSection } from './hierarchy.js';
import { collectionFolder, collectionPage } from '../format/catalogue-names.js';
import { type Cell, letterIndex, rowEntry, rowsScript, tableTools } from './page-script.js';
import { recordHtml } from './record-page.js';
import { labelOf, type SnapshotRecord } from '../format/records.js';
import { indexEntry } from './search.js';
import { type Catalogue, firstTarget, rootCollectionOf } from './first-pass.js';

/** Rows per collection page: a page stays light in any browser, whatever the collection's size. */
const ROWS_PER_PAGE = 500;

function excerpt(value: unknown, max = 160): string {
  if (typeof value !== 'string') return '';
  const text = value.replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
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

/**
 * The layout of a collection's table (a key of TABLE_LAYOUTS): a community variant collection shows each record's
 * community and root; a collection whose records have a status, the status.
 */
function layoutOf(c: Catalogue, collection: string): keyof typeof TABLE_LAYOUTS {
  const variants = rootCollectionOf(c, collection) !== undefined;
  const status = c.info.get(collection)!.hasStatus;
  return variants ? (status ? 'records-vs' : 'records-v') : status ? 'records-s' : 'records-plain';
}

/** A record's row: one cell per column (links relative to the collection's folder). */
function rowCells(c: Catalogue, collection: string, columns: Columns, resource: SnapshotRecord, href: string): Cell[] {
  const a = resource.attributes;
  const root = firstTarget(resource, 'root');
  const rootFound = root && c.records.find(root.type, root.id);
  return columns.map((column): Cell => {
    switch (column) {
      case 'Id':
        return resource.id;
      case 'Term or name':
        return [labelOf(resource), href];
      case 'Community':
        return c.site.communityOf(resource.type, resource.id) ?? '';
      case 'Root':
        return rootFound ? [rootFound.label, fromCollection(collection, rootFound.page)] : '';
      case 'Status':
        return typeof a.status === 'string' ? a.status : '';
      case 'Definition':
        return excerpt(a.definition ?? a.description);
      default:
        return excerpt(a.provenance, 80);
    }
  });
}

function rowHtml(columns: Columns, cells: Cell[]): string {
  const tds = cells.map((cell, i) => {
    const column = columns[i]!;
    const shown =
      column === 'Status'
        ? statusBadge(cell)
        : typeof cell === 'string'
          ? esc(cell)
          : `<a href="${esc(cell[1])}">${esc(cell[0])}</a>`;
    return `<td>${shown}</td>`;
  });
  return `<tr>${tds.join('')}</tr>\n`;
}

/** A collection's download in `format` from its pages (docs/vocabulary-export.md). */
function downloadHref(collection: string, format: ExportFormat): string {
  return path.posix.relative(collectionFolder(collection), downloadFile(collection, format));
}

/** Links from a collection's pages to its downloads. */
function downloadLinks(collection: string): string {
  const skos = alternates((format) => downloadHref(collection, format)).links;
  const csv = `<a href="${esc(downloadHref(collection, 'csv'))}" type="text/csv" download>CSV</a>`;
  return `<p class="downloads">Download the collection: ${skos} · ${csv}</p>\n`;
}

/**
 * Writes every collection's pages, the pages of its records (collectionPages) and its downloads (Turtle, JSON-LD,
 * CSV), and yields each record's search entry as its page is written: in the order of the pages, a record listed
 * twice once.
 */
export function* pagesAndSearchEntries(c: Catalogue): Generator<string> {
  // The list pages are read a second time: a record's page names the records that point at it, known once pass 1
  // has read them all.
  const source = exportSource(c.input.reader);
  for (const collection of c.input.reader.collections()) {
    const downloads = new CollectionDownloads(source, c.survey, collection);
    yield* collectionPages(c, collection, downloads);
    c.timeDownloads(() => downloads.write(c.input.writer));
  }
}

/**
 * Writes a collection's pages (500 rows each), its rows script, and the pages of the records it keeps; yields the
 * search entry of each record whose page it writes.
 */
function* collectionPages(c: Catalogue, collection: string, downloads: CollectionDownloads): Generator<string> {
  const { records: total, skipped, hasStatus, letters } = c.info.get(collection)!;
  const title = c.site.titles.get(collection) ?? collection;
  const layout = layoutOf(c, collection);
  const columns = TABLE_LAYOUTS[layout];
  const pageCount = Math.max(1, Math.ceil(total / ROWS_PER_PAGE));
  let rows: string[] = [];
  let tree: string[] = [];
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
    const head = columns
      .map((column) => `<th scope="col"${column === 'Status' ? ' data-status' : ''}>${column}</th>`)
      .join('');
    const table =
      rows.length === 0
        ? '<p>This collection holds no records.</p>\n'
        : letterIndex(letters) +
          tableTools(hasStatus) +
          `<div class="table-wrap"><table class="records ${layout}">\n<thead><tr>${head}</tr></thead>\n` +
          `<tbody>\n${rows.join('')}</tbody>\n</table></div>\n` +
          treeSection(tree);
    // The summary, the collection's downloads (written beside the catalogue: src/export/downloads.ts), the table.
    const summary =
      `<p class="summary">${total} records. API name <code>${esc(collection)}</code>.` +
      `${skippedNote(skipped)}</p>\n${total > 0 ? downloadLinks(collection) : ''}`;
    c.write(
      collectionPage(collection, n),
      page({
        title: pageCount > 1 ? `${title} (page ${n} of ${pageCount})` : title,
        ...(total > 0 ? { head: alternates((format) => downloadHref(collection, format)).head } : {}),
        toCatalogue: '../',
        toFront: '../../index.html',
        crumbs: [],
        body: `${summary}${nav}${table}${nav}`,
        scripts: rows.length === 0 ? [] : ['rows.js', '../catalogue.js'],
        site: c.site.names.names.site?.title,
      }),
    );
    rows = [];
    tree = [];
    n++;
  };
  for (const list of c.input.reader.pages(collection)) {
    // The downloads' share, timed apart for the crawl's phases (finalize.ts).
    c.timeDownloads(() => {
      for (const resource of list.records) downloads.add(resource);
    });
    for (const resource of list.records) {
      const id = resource.id;
      const listedOn = n;
      const recordFile = c.records.find(resource.type, id)!.page;
      const href = fromCollection(collection, recordFile);
      const cells = rowCells(c, collection, columns, resource, href);
      const status = typeof resource.attributes.status === 'string' ? resource.attributes.status : '';
      // In rows.js the label is plain text: the script links it to the row's page.
      data.push(
        rowEntry({
          page: href,
          status,
          cells: cells.map((cell, i) => (i === 1 && typeof cell !== 'string' ? cell[0] : cell)),
        }),
      );
      rows.push(rowHtml(columns, cells));
      tree.push(treeItem(c.site, resource, (page) => fromCollection(collection, page)));
      if (rows.length === ROWS_PER_PAGE) flush();
      // A record listed twice (in two collections, or twice in one) gets one page, where it was first seen.
      if (!c.records.takePage(resource.type, id, collection)) continue;
      const label = labelOf(resource);
      c.write(recordFile, recordHtml(c.site, { collection, id, resource, label, n: listedOn }));
      yield searchEntry(c, collection, resource, recordFile);
    }
  }
  if (rows.length > 0 || n === 1) flush();
  if (data.length > 0) c.input.writer.writeParts(`${collectionFolder(collection)}/rows.js`, rowsScript(data));
}

/** A record's entry in the search index (search.ts): what it is found by, and what a result shows of it. */
function searchEntry(c: Catalogue, collection: string, resource: SnapshotRecord, page: string): string {
  const a = resource.attributes;
  const searchable = Object.entries(a)
    .filter(([name, v]) => typeof v === 'string' && v !== '' && !/(_uri|_url|email)$/.test(name))
    .map(([, v]) => v as string)
    .join(' ');
  return indexEntry({
    page,
    label: labelOf(resource),
    status: typeof a.status === 'string' ? a.status : '',
    collection,
    id: resource.id,
    community: c.site.communityOf(resource.type, resource.id) ?? '',
    definition: excerpt(a.definition ?? a.description, 120),
    text: searchable,
  });
}
