/**
 * The front page's HTML (docs/catalogue.md; front-page.ts gathers what it shows): the site's title and
 * introduction, the vocabularies first (each with its number of records, its status summary and a link to its
 * community variants), the search results as a view of their own (shown by the page's script for `?q=`), and the
 * snapshot's provenance as a compact aside at the end.
 */
import { CATALOGUE_DIR } from '../format/layout.js';
import { FRONT_PAGE } from '../format/catalogue-names.js';
import { esc, page, SITE_TITLE, snapshotTime } from './html.js';
import { plural } from '../util/plural.js';
import { SEARCH_RESULTS } from './search.js';

/** A collection as the front page lists it. */
export interface FrontCollection {
  title: string;
  /** Its first page, from the front page. */
  href: string;
  records: number;
  /** Records by status, when its records have one. */
  statuses: ReadonlyMap<string, number> | null;
  /** Its community variants' collections. */
  variants: ReadonlyArray<{ title: string; href: string; records: number }>;
}

export interface FrontPage {
  site: { title?: string; introduction?: string } | undefined;
  collections: readonly FrontCollection[];
  about: { root: string; createdAt: string; tool: string; errors: number; warnings: number };
  /** The findings page and the Changes link (already HTML). */
  findings: string;
  changes: string;
  /** What a partial snapshot lacks (already HTML), or ''. */
  partial: string;
}

/** "11 accepted · 1 pending", the most frequent status first; nothing for a collection without status. */
function statusSummary(statuses: ReadonlyMap<string, number> | null): string {
  if (statuses === null || statuses.size === 0) return '';
  return [...statuses]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([status, n]) => ` · ${n} ${esc(status.toLowerCase())}`)
    .join('');
}

function card(c: FrontCollection): string {
  const variants =
    c.variants.length === 0
      ? ''
      : '<p>' +
        c.variants.map((v) => `<a href="${esc(v.href)}">${plural(v.records, 'community variant')}</a>`).join(', ') +
        '</p>';
  return (
    `<li><h3><a href="${esc(c.href)}">${esc(c.title)}</a></h3>` +
    `<p>${plural(c.records, 'term')}${statusSummary(c.statuses)}</p>${variants}</li>\n`
  );
}

/**
 * The page `serve` answers a browser with, with 404, on an address the snapshot has no document for: the search box
 * in its header, and the way to the vocabularies.
 */
export function notFoundHtml(site: string | undefined): string {
  return page({
    title: 'No such page in this snapshot',
    toCatalogue: '',
    toFront: `../${FRONT_PAGE}`,
    crumbs: [],
    body:
      '<p>No term, collection or page of this snapshot answers this address: it may have been removed before the ' +
      'snapshot was taken, or mistyped. Search for it above, or browse the ' +
      `<a href="../${FRONT_PAGE}">vocabularies</a>.</p>\n`,
    site,
  });
}

export function frontPageHtml(input: FrontPage): string {
  const { about } = input;
  const title = input.site?.title ?? SITE_TITLE;
  const intro = input.site?.introduction;
  const body =
    input.partial +
    SEARCH_RESULTS +
    '<div id="front-content">\n' +
    (intro === undefined ? '' : `<p class="intro">${esc(intro)}</p>\n`) +
    '<noscript><p>Search needs JavaScript; every page can be browsed without it.</p></noscript>\n' +
    `<h2>Vocabularies</h2>\n<ul class="vocabularies">\n${input.collections.map(card).join('')}</ul>\n` +
    '<aside class="about" aria-labelledby="about-title">\n<h2 id="about-title">About this snapshot</h2>\n' +
    `<dl>\n<dt>Source</dt><dd><code>${esc(about.root)}</code></dd>\n` +
    `<dt>Taken</dt><dd>${snapshotTime(about.createdAt).html}</dd>\n<dt>Made by</dt><dd>${esc(about.tool)}</dd>\n` +
    `<dt>Validation</dt><dd><a href="${input.findings}">${plural(about.errors, 'error')}, ` +
    `${plural(about.warnings, 'warning')}</a></dd>\n` +
    `<dt>Changes</dt><dd>${input.changes}</dd>\n</dl>\n</aside>\n</div>\n` +
    `<script src="${CATALOGUE_DIR}/search-index.js"></script>\n<script src="${CATALOGUE_DIR}/search.js"></script>\n`;
  return page({
    title,
    toCatalogue: `${CATALOGUE_DIR}/`,
    toFront: FRONT_PAGE,
    crumbs: [],
    body,
    site: title,
    front: true,
  });
}
