/**
 * The catalogue for people (docs/catalogue.md): a front page at the tree's top-level `index.html` and, under
 * `_catalogue/`, a page per collection (paginated) and per record, built from the snapshot's own list pages in
 * passes (first the names and reverse links of every record, then the pages with the search index), one list page
 * in memory at a time. Deterministic: collections by name, records in the source's order, no time but the snapshot's
 * `createdAt`.
 */
import { shiftedOf, shiftedSentence } from '../format/partial.js';
import type { Manifest } from '../format/manifest.js';
import { plural } from '../util/plural.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { flatKey } from '../util/flat-key.js';
import { CATALOGUE_DIR, type Layout } from '../format/layout.js';
import { downloadFile } from '../export/downloads.js';
import type { ExportFormat } from '../export/export-snapshot.js';
import type { StoredLinks } from '../format/rewrite-links.js';
import type { TreeWriter } from '../store/writer.js';
import {
  alternates,
  type Columns,
  esc,
  FAVICON,
  FAVICON_SVG,
  page,
  snapshotTime,
  STYLE,
  statusBadge,
  TABLE_LAYOUTS,
} from './html.js';
import { frontPageHtml, notFoundHtml } from './front-page.js';
import { treeItem, treeSection } from './hierarchy.js';
import type { CatalogueNames } from '../format/human-names.js';
import { HumanNames } from './labels.js';
import { collectionFolder, collectionPage, FRONT_PAGE, NOT_FOUND_PAGE } from '../format/catalogue-names.js';
import { type Cell, letterIndex, PAGE_SCRIPT, rowEntry, rowsScript, tableTools } from './page-script.js';
import { FINDINGS_PAGE, findingsHtml } from './findings-page.js';
import { recordHtml, type RecordSite } from './record-page.js';
import { CHANGES_PAGE, changeNotes, changesHtml, changesLink, type CatalogueChanges } from './changes-page.js';
import { linksOnlyReader, linksOnlyTargets } from './stored.js';
import { CatalogueRecords } from './records.js';
import { isObject } from '../json/is-object.js';
import { linkages, listRecords, type Resource } from './resource.js';
import { indexEntry, letterOf, SEARCH_SCRIPT, searchIndexParts as indexScriptParts } from './search.js';

/** Rows per collection page: a page stays light in any browser, whatever the collection's size. */
const ROWS_PER_PAGE = 500;

export interface CatalogueInput {
  layout: Layout;
  writer: TreeWriter;
  /** Every collection with its stored list page files, in page order. */
  collections: Array<[string, string[]]>;
  /** How the snapshot wrote its links (`--links`), to read them back. */
  links: StoredLinks;
  about: {
    root: string;
    createdAt: string;
    tool: string;
    errors: number;
    warnings: number;
    /** Documents the snapshot lacks (--allow-partial), and collections published although their pages shifted. */
    missing: number;
    shifted: string[];
  };
  /** The user's names for collections and fields (`--names`), in place of the derived ones. */
  names?: CatalogueNames;
  /** What the Changes page shows: the comparison with the snapshot before (src/pipeline/changes-since.ts). */
  changes: CatalogueChanges;
}

/** What pass 1 learns of a collection. */
interface CollectionInfo {
  records: number;
  /** List entries that are not records (no type or id), which no page shows. */
  skipped: number;
  statuses: Map<string, number>;
  /** Whether any record has a `status` attribute. */
  hasStatus: boolean;
  /** The type of its first record. */
  type?: string;
  /** The first letters of its records' labels (the A–Z index). */
  letters: Set<string>;
  /** The first `root` target of its records: a collection of community variants has one. */
  root?: { type: string; id: string };
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

/** The first linkage of a relationship, when it is given as data. */
function firstTarget(resource: Resource, name: string): { type: string; id: string } | undefined {
  const relationship = resource.relationships[name];
  return isObject(relationship) ? linkages(relationship.data)[0] : undefined;
}

/** Everything the passes share. */
interface Catalogue {
  input: CatalogueInput;
  readPage: (file: string) => Resource[];
  records: CatalogueRecords;
  info: Map<string, CollectionInfo>;
  site: RecordSite;
  write: (file: string, html: string) => void;
}

/** Pass 1: where each record lives, what it is called, who points at it, and what each collection is. */
function firstPass(input: CatalogueInput, readList: (file: string) => ReturnType<typeof listRecords>) {
  const records = new CatalogueRecords();
  const info = new Map<string, CollectionInfo>();
  /** A community variant's `community` target, by the variant's type and id. */
  const communities = new Map<string, { type: string; id: string }>();
  /** Where the relationships given with links only lead (RecordSite.linksOnly). */
  const linksOnly = new Map<string, unknown>();
  const reader = linksOnlyReader(input);
  for (const [collection, files] of input.collections) {
    const count: CollectionInfo = { records: 0, skipped: 0, statuses: new Map(), hasStatus: false, letters: new Set() };
    info.set(collection, count);
    for (const file of files) {
      const list = readList(file);
      count.skipped += list.skipped;
      for (const resource of list.records) {
        count.records++;
        count.type ??= resource.type;
        const status = resource.attributes.status;
        if ('status' in resource.attributes) count.hasStatus = true;
        if (typeof status === 'string') count.statuses.set(status, (count.statuses.get(status) ?? 0) + 1);
        const label = labelOf(resource, resource.id);
        count.letters.add(letterOf(label));
        const self = records.add(resource.type, resource.id, collection, label);
        for (const [name, relationship] of Object.entries(resource.relationships)) {
          if (!isObject(relationship)) continue;
          for (const target of linkages(relationship.data)) records.addReference(target.type, target.id, self, name);
        }
        // Relationships given with links only: read here, once, so that their targets' pages list who points at them.
        if (records.find(resource.type, resource.id)!.collection === collection) {
          for (const [name, data] of linksOnlyTargets(reader, collection, resource)) {
            // Most lead nowhere (`data: null`): only the others are kept (record-page.ts reads a missing one as that).
            if (data !== null) linksOnly.set(flatKey(resource.type, resource.id, name), data);
            for (const target of linkages(data)) records.addReference(target.type, target.id, self, name);
          }
        }
        count.root ??= firstTarget(resource, 'root');
        const community = firstTarget(resource, 'community');
        if (community) communities.set(flatKey(resource.type, resource.id), community);
      }
    }
  }
  return { records, info, communities, linksOnly };
}

/**
 * Each collection's human name: the user's, else from its records' type, or, for community variants, from their
 * roots' collection's name.
 */
function collectionTitles(
  records: CatalogueRecords,
  info: Map<string, CollectionInfo>,
  names: HumanNames,
): Map<string, string> {
  const titles = new Map<string, string>();
  for (const [collection, count] of info) titles.set(collection, names.collection(collection, count.type));
  for (const [collection, count] of info) {
    const rootCollection = count.root && records.find(count.root.type, count.root.id)?.collection;
    if (rootCollection !== undefined && rootCollection !== collection && !names.namesCollection(collection)) {
      titles.set(collection, `${titles.get(rootCollection)!}: community variants`);
    }
  }
  return titles;
}

/** The collection of a variant collection's roots, or undefined for any other collection. */
function rootCollectionOf(c: Catalogue, collection: string): string | undefined {
  const root = c.info.get(collection)?.root;
  const found = root && c.records.find(root.type, root.id)?.collection;
  return found === collection ? undefined : found;
}

/** A list page's records, read from the staged tree (what is not a record is left out; the crawl reported it). */
function listReader(writer: TreeWriter): (file: string) => ReturnType<typeof listRecords> {
  return (file) => {
    try {
      return listRecords(readFileSync(path.join(writer.dir, file), 'utf8'));
    } catch {
      return { records: [], skipped: 0 };
    }
  };
}

/** Pass 1 and what the later passes share: the records, the collections, their titles, the record pages' site. */
function catalogueOf(input: CatalogueInput, counter: { pages: number }): Catalogue {
  const { layout, writer } = input;
  const readList = listReader(writer);
  const { records, info, communities, linksOnly } = firstPass(input, readList);
  const names = new HumanNames(input.names);
  const titles = collectionTitles(records, info, names);
  return {
    input,
    readPage: (file) => readList(file).records,
    records,
    info,
    site: {
      layout,
      writer,
      records,
      links: input.links,
      titles,
      names,
      linksOnly,
      communityOf: (type, id) => {
        const community = communities.get(flatKey(type, id));
        return community ? (records.find(community.type, community.id)?.label ?? null) : null;
      },
      createdAt: input.about.createdAt,
      source: input.about.root,
      changes: changeNotes(input.changes, names),
    },
    write: (file, html) => {
      writer.write(file, html);
      counter.pages++;
    },
  };
}

/** The files every page shares: the style sheet, the scripts, and the snapshot's time for the citations. */
function writeAssets(writer: TreeWriter, createdAt: string): void {
  writer.write(`${CATALOGUE_DIR}/style.css`, STYLE);
  writer.write(`${CATALOGUE_DIR}/${FAVICON}`, FAVICON_SVG);
  writer.write(`${CATALOGUE_DIR}/search.js`, SEARCH_SCRIPT);
  writer.write(`${CATALOGUE_DIR}/catalogue.js`, PAGE_SCRIPT);
  // The snapshot's time for the record pages' citations: the one catalogue file besides the front page it is in.
  const when = snapshotTime(createdAt);
  writer.write(
    `${CATALOGUE_DIR}/snapshot.js`,
    `window.cvSnapshot = ${JSON.stringify({ createdAt, text: when.text })};\n`,
  );
}

/** What building a catalogue made. */
export interface BuiltCatalogue {
  pages: number;
  /** The user's names (`--names`) that no collection or field of the snapshot took (HumanNames.unused). */
  unusedNames: string[];
}

/** What the front page says of the snapshot, all from its manifest (the crawl's, or the input's for `catalogue`). */
export function aboutSnapshot(manifest: Manifest): CatalogueInput['about'] {
  return {
    root: manifest.source.root,
    createdAt: manifest.createdAt,
    tool: `${manifest.tool.name} ${manifest.tool.version}`,
    errors: manifest.validation.errors,
    warnings: manifest.validation.warnings,
    missing: manifest.missing.length,
    shifted: shiftedOf(manifest),
  };
}

/** Builds the catalogue into the staged tree; null when the layout has no room for one. */
export function buildCatalogue(input: CatalogueInput): BuiltCatalogue | null {
  // A source served at its host's root has its root document at index.html: the catalogue would share its paths.
  if (!input.layout.hasCatalogueRoom()) return null;
  const counter = { pages: 0 };
  const c = catalogueOf(input, counter);
  writeAssets(input.writer, input.about.createdAt);
  // Pass 2: collection pages and record pages. Each record's search entry is made as its page is written, and
  // streamed into the search index as writeParts asks for the next part: the index is never whole in memory, and
  // the list pages are read once less than with a pass of its own.
  const titles = Object.fromEntries([...c.site.titles].sort(([a], [b]) => (a < b ? -1 : 1)));
  input.writer.writeParts(`${CATALOGUE_DIR}/search-index.js`, indexScriptParts(pagesAndSearchEntries(c), titles));
  // The report's findings for people: after the record pages, which it links.
  c.write(
    FINDINGS_PAGE,
    findingsHtml({
      dir: input.writer.dir,
      layout: input.layout,
      records: c.records,
      collections: new Set(c.info.keys()),
      site: input.names?.site?.title,
    }),
  );
  c.write(CHANGES_PAGE, changesHtml(c.site, input.changes, input.about.createdAt));
  c.write(FRONT_PAGE, frontHtml(c));
  c.write(NOT_FOUND_PAGE, notFoundHtml(input.names?.site?.title));
  return { pages: counter.pages, unusedNames: c.site.names.unused() };
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
function rowCells(c: Catalogue, collection: string, columns: Columns, resource: Resource, href: string): Cell[] {
  const a = resource.attributes;
  const root = firstTarget(resource, 'root');
  const rootFound = root && c.records.find(root.type, root.id);
  return columns.map((column): Cell => {
    switch (column) {
      case 'Id':
        return resource.id;
      case 'Term or name':
        return [labelOf(resource, resource.id), href];
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
 * Writes every collection's pages and the pages of its records (collectionPages), and yields each record's search
 * entry as its page is written: in the order of the pages, a record listed twice once.
 */
function* pagesAndSearchEntries(c: Catalogue): Generator<string> {
  for (const [collection, files] of c.input.collections) yield* collectionPages(c, collection, files);
}

/**
 * Writes a collection's pages (500 rows each), its rows script, and the pages of the records it keeps; yields the
 * search entry of each record whose page it writes.
 */
function* collectionPages(c: Catalogue, collection: string, files: string[]): Generator<string> {
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
  for (const file of files) {
    for (const resource of c.readPage(file)) {
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
      const label = labelOf(resource, id);
      c.write(recordFile, recordHtml(c.site, { collection, id, resource, label, n: listedOn }));
      yield searchEntry(c, collection, resource, recordFile);
    }
  }
  if (rows.length > 0 || n === 1) flush();
  if (data.length > 0) c.input.writer.writeParts(`${collectionFolder(collection)}/rows.js`, rowsScript(data));
}

/** A record's entry in the search index (search.ts): what it is found by, and what a result shows of it. */
function searchEntry(c: Catalogue, collection: string, resource: Resource, page: string): string {
  const a = resource.attributes;
  const searchable = Object.entries(a)
    .filter(([name, v]) => typeof v === 'string' && v !== '' && !/(_uri|_url|email)$/.test(name))
    .map(([, v]) => v as string)
    .join(' ');
  return indexEntry({
    page,
    label: labelOf(resource, resource.id),
    status: typeof a.status === 'string' ? a.status : '',
    collection,
    id: resource.id,
    community: c.site.communityOf(resource.type, resource.id) ?? '',
    definition: excerpt(a.definition ?? a.description, 120),
    text: searchable,
  });
}

/** For a partial snapshot (--allow-partial), what it lacks, first on the front page; nothing for a complete one. */
function partialNote(about: CatalogueInput['about']): string {
  const reasons: string[] = [];
  if (about.missing > 0) {
    reasons.push(
      `${plural(about.missing, 'document')} could not be fetched when it was made and ` +
        `${about.missing === 1 ? 'is' : 'are'} not in it (the <a href="${FINDINGS_PAGE}">validation findings</a> ` +
        `${about.missing === 1 ? 'name it' : 'name them'})`,
    );
  }
  if (about.shifted.length > 0) reasons.push(esc(shiftedSentence(about.shifted).slice(0, -1)));
  if (reasons.length === 0) return '';
  return `<p class="partial"><strong>A partial snapshot:</strong> ${reasons.join('; and ')}.</p>\n`;
}

/**
 * The front page's collections: each global vocabulary with its community variants' collections under it (not
 * listed of their own), in name order.
 */
function frontHtml(c: Catalogue): string {
  const { about } = c.input;
  const variantsOf = new Map<string, string[]>();
  const names = c.input.collections.map(([name]) => name);
  for (const name of names) {
    const root = rootCollectionOf(c, name);
    if (root !== undefined) variantsOf.set(root, [...(variantsOf.get(root) ?? []), name]);
  }
  const placed = new Set([...variantsOf.values()].flat());
  const entry = (collection: string) => {
    const count = c.info.get(collection)!;
    return {
      title: c.site.titles.get(collection) ?? collection,
      href: collectionPage(collection, 1),
      records: count.records,
      statuses: count.hasStatus ? count.statuses : null,
    };
  };
  return frontPageHtml({
    site: c.input.names?.site,
    collections: names
      .filter((name) => !placed.has(name))
      .map((name) => ({ ...entry(name), variants: (variantsOf.get(name) ?? []).map(entry) })),
    about,
    findings: FINDINGS_PAGE,
    changes: changesLink(c.input.changes),
    partial: partialNote(about),
  });
}
