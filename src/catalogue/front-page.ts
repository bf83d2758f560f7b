/** The catalogue's front page (the tree's top-level index.html): the snapshot, its collections and the search. */
import { shiftedSentence } from '../format/partial.js';
import { plural } from '../util/plural.js';
import { CATALOGUE_DIR } from '../format/layout.js';
import { esc, page, snapshotTime } from './html.js';
import { collectionPage, FRONT_PAGE } from '../format/catalogue-names.js';
import { FINDINGS_PAGE } from './findings-page.js';
import { changesLink } from './changes-page.js';
import { SEARCH_RESULTS } from './search.js';
import { type Catalogue, type CatalogueInput, rootCollectionOf } from './first-pass.js';

/** The collections in the order of the front page: each one, then the collections of its community variants. */
function frontOrder(c: Catalogue): string[] {
  const names = c.input.reader.collections();
  const variantsOf = new Map<string, string[]>();
  for (const name of names) {
    const root = rootCollectionOf(c, name);
    if (root !== undefined) variantsOf.set(root, [...(variantsOf.get(root) ?? []), name]);
  }
  const placed = new Set([...variantsOf.values()].flat());
  return names.filter((name) => !placed.has(name)).flatMap((name) => [name, ...(variantsOf.get(name) ?? [])]);
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

export function frontHtml(c: Catalogue): string {
  const { about } = c.input;
  const rows = frontOrder(c)
    .map((collection) => {
      const count = c.info.get(collection)!;
      const title = c.site.titles.get(collection) ?? collection;
      const variant = rootCollectionOf(c, collection) !== undefined;
      const status = count.hasStatus
        ? `${count.statuses.get('ACCEPTED') ?? 0} accepted, ${count.statuses.get('PENDING') ?? 0} pending`
        : '<span class="muted">no status</span>';
      return (
        `<tr${variant ? ' class="variant-row"' : ''}><td>` +
        `<a href="${collectionPage(collection, 1)}">${esc(title)}</a> <code class="muted">${esc(collection)}</code>` +
        `</td><td>${count.records}</td><td>${status}</td></tr>\n`
      );
    })
    .join('');
  const when = snapshotTime(about.createdAt);
  const body =
    partialNote(about) +
    SEARCH_RESULTS +
    `<dl>\n<dt>Source</dt><dd><code>${esc(about.root)}</code></dd>\n` +
    `<dt>Snapshot taken</dt><dd>${when.html}</dd>\n<dt>Made by</dt><dd>${esc(about.tool)}</dd>\n` +
    `<dt>Validation</dt><dd><a href="${FINDINGS_PAGE}">${about.errors} errors, ${about.warnings} warnings</a></dd>\n` +
    `<dt>Changes</dt><dd>${changesLink(c.input.changes)}</dd>\n</dl>\n` +
    '<h2>Collections</h2>\n<div class="table-wrap"><table class="collections">\n<thead><tr>' +
    '<th scope="col">Collection</th><th scope="col">Records</th><th scope="col">Status</th></tr></thead>\n' +
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
