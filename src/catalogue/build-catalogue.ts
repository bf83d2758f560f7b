/**
 * The catalogue for people (docs/catalogue.md): a front page at the tree's top-level `index.html` and, under
 * `_catalogue/`, a page per collection (paginated) and per record, and each collection's downloads, built from the
 * snapshot's own list pages in two reads: first the names and reverse links of every record (with the downloads'
 * survey and the Changes page's comparison), then the pages with the search index and the downloads, one list page
 * in memory at a time. Deterministic: collections by name, records in the source's order, no time but the snapshot's
 * `createdAt`.
 */
import { shiftedOf } from '../format/partial.js';
import type { Manifest } from '../format/manifest.js';
import { CATALOGUE_DIR } from '../format/layout.js';
import type { TreeWriter } from '../store/writer.js';
import { FAVICON, FAVICON_SVG, snapshotTime, STYLE } from './html.js';
import { FRONT_PAGE, NOT_FOUND_PAGE } from '../format/catalogue-names.js';
import { PAGE_SCRIPT } from './page-script.js';
import { FINDINGS_PAGE, findingsHtml } from './findings-page.js';
import { CHANGES_PAGE, changesHtml, type CatalogueChanges } from './changes-page.js';
import { writeTombstones } from './tombstones.js';
import { SEARCH_SCRIPT, searchIndexParts as indexScriptParts } from './search.js';
import { catalogueOf, type CatalogueInput } from './first-pass.js';
import { pagesAndSearchEntries } from './collection-pages.js';
import { frontHtml } from './front-page.js';
import { notFoundHtml } from './front-page-html.js';

export type { CatalogueInput };

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
  /** What the Changes page compared. */
  changes: CatalogueChanges;
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

/**
 * Builds the catalogue and its downloads into the staged tree, and the Changes page's comparison; null when the
 * layout has no room for a catalogue.
 */
export async function buildCatalogue(input: CatalogueInput): Promise<BuiltCatalogue | null> {
  // A source served at its host's root has its root document at index.html: the catalogue would share its paths.
  if (!input.layout.hasCatalogueRoom()) return null;
  const counter = { pages: 0 };
  const c = await catalogueOf(input, counter);
  writeAssets(input.writer, input.about.createdAt);
  input.stage?.("the catalogue's pages and its SKOS and CSV downloads…");
  // Pass 2: collection pages, record pages and downloads. Each record's search entry is made as its page is
  // written, and streamed into the search index as writeParts asks for the next part: the index is never whole in
  // memory.
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
  c.write(CHANGES_PAGE, changesHtml(c.site, c.changes, input.about.createdAt));
  // The pages removed records keep, linked from the Changes page.
  if (c.changes.against !== null) {
    const data = (file: string, text: string) => void input.writer.write(file, text);
    writeTombstones({ page: c.write, data }, c.site, c.changes.tombstones);
  }
  c.write(FRONT_PAGE, frontHtml(c));
  c.write(NOT_FOUND_PAGE, notFoundHtml(input.names?.site?.title));
  return { pages: counter.pages, unusedNames: c.site.names.unused(), changes: c.changes };
}
