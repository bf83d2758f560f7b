/**
 * The catalogue's front page (the tree's top-level index.html): what it shows of the snapshot and its collections,
 * gathered from the first pass; front-page-html.ts writes it.
 */
import { shiftedSentence } from '../format/partial.js';
import { plural } from '../util/plural.js';
import { esc } from './html.js';
import { collectionPage } from '../format/catalogue-names.js';
import { FINDINGS_PAGE } from './findings-page.js';
import { changesLink } from './changes-page.js';
import { frontPageHtml } from './front-page-html.js';
import { type Catalogue, type CatalogueInput, rootCollectionOf } from './first-pass.js';

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
export function frontHtml(c: Catalogue): string {
  const { about } = c.input;
  const variantsOf = new Map<string, string[]>();
  const names = c.input.reader.collections();
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
    changes: changesLink(c.changes),
    partial: partialNote(about),
  });
}
