/**
 * The hierarchy the API's relationships give (docs/catalogue.md#hierarchy): an action category's action types, a
 * site usage's site types, a root term's community variants. A record page shows its path in the breadcrumb
 * ("Action categories › Device calibration › Battery replacement"); a collection page shows its terms that have
 * narrower terms or variants as an expandable tree of `<details>`, which needs neither script nor network.
 */
import { isObject } from '../json/is-object.js';
import { esc } from './html.js';
import type { CatalogueRecords } from './records.js';
import { linkagesOf as linkages, type SnapshotRecord as Resource } from '../format/records.js';

/** Relationships that lead from a record to the one above it. */
const UP = ['action_category', 'root'] as const;
/** Relationships that list the records below a record. */
const DOWN = new Set(['action_types', 'site_types']);
/** How far up a path is followed: the API's hierarchy has two levels; a cycle in the data stops here too. */
const MAX_DEPTH = 4;

export interface HierarchySite {
  records: CatalogueRecords;
  titles: ReadonlyMap<string, string>;
  communityOf: (type: string, id: string) => string | null;
}

type Key = { type: string; id: string };

/** The record above `key`: from the record's own relationships where given, else a record that lists it below. */
function parentOf(site: HierarchySite, key: Key, resource?: Resource): Key | null {
  if (resource !== undefined) {
    for (const name of UP) {
      const relationship = resource.relationships[name];
      const target = isObject(relationship) ? linkages(relationship.data)[0] : undefined;
      if (target !== undefined && site.records.find(target.type, target.id)) return target;
    }
  }
  const above = site.records.referrers(key.type, key.id).find((r) => DOWN.has(r.relationship));
  return above === undefined ? null : { type: above.type, id: above.id };
}

/**
 * The breadcrumb of a record's page, from the tree's top: the collection of its topmost ancestor, then each ancestor
 * (label and page); null when the record has none, so the page keeps its own collection.
 */
export function breadcrumbPath(site: HierarchySite, resource: Resource): Array<[string, string]> | null {
  const path: Array<{ collection: string; label: string; page: string }> = [];
  const seen = new Set<string>();
  let key: Key | null = parentOf(site, resource, resource);
  while (key !== null && path.length < MAX_DEPTH && !seen.has(`${key.type}\u0000${key.id}`)) {
    seen.add(`${key.type}\u0000${key.id}`);
    const found = site.records.find(key.type, key.id);
    if (found === undefined) break;
    path.unshift(found);
    key = parentOf(site, key);
  }
  if (path.length === 0) return null;
  const top = path[0]!;
  return [
    [site.titles.get(top.collection) ?? top.collection, `../../${firstPageBeside(top.page)}`],
    ...path.map(({ label, page }): [string, string] => [label, `../../${page}`]),
  ];
}

/** The first page of the collection whose record page is `page` (`_catalogue/<folder>/r-…` → its page-1). */
function firstPageBeside(page: string): string {
  return `${page.slice(0, page.lastIndexOf('/'))}/page-1.html`;
}

/** The records directly below a record that its relationships list below it (not its community variants). */
function childrenOf(site: HierarchySite, key: Key, resource?: Resource): Key[] {
  const below: Key[] = [];
  if (resource !== undefined) {
    for (const [name, relationship] of Object.entries(resource.relationships)) {
      if (DOWN.has(name) && isObject(relationship)) below.push(...linkages(relationship.data));
    }
  } else {
    // A record whose own relationships are not at hand: the records that name it as the one above them.
    for (const r of site.records.referrers(key.type, key.id)) {
      if (r.relationship === 'action_category') below.push(r);
    }
  }
  return below.filter((k) => site.records.find(k.type, k.id) !== undefined);
}

/** A record's community variants: the records whose `root` leads to it. */
function variantsOf(site: HierarchySite, key: Key): Key[] {
  return site.records
    .referrers(key.type, key.id)
    .filter((r) => r.relationship === 'root' && site.records.find(r.type, r.id) !== undefined);
}

/**
 * A record's community variants on one line, each named by its community where it has the record's own label
 * ("Community variants: TERENO, Coastal Ocean Sensors"): most of a large collection's tree is variants, so each is
 * named in as few words as read well.
 */
function variantsLine(site: HierarchySite, label: string, variants: Key[], href: (page: string) => string): string {
  const links = variants.map((v) => {
    const found = site.records.find(v.type, v.id)!;
    const community = site.communityOf(v.type, v.id);
    const text = community === null ? found.label : found.label === label ? community : `${found.label} (${community})`;
    return `<a href="${esc(href(found.page))}">${esc(text)}</a>`;
  });
  return `<li>Community variants: ${links.join(', ')}</li>`;
}

/** A record in the tree: its label linked (`href` gives the link from the tree's page), and what is below it. */
function node(
  site: HierarchySite,
  key: Key,
  href: (page: string) => string,
  depth: number,
  resource?: Resource,
): string {
  const found = site.records.find(key.type, key.id)!;
  const community = site.communityOf(key.type, key.id);
  const link =
    `<a href="${esc(href(found.page))}">${esc(found.label)}</a>` +
    (community === null ? '' : ` <span class="muted">in community ${esc(community)}</span>`);
  const below = depth < 2 ? childrenOf(site, key, resource) : [];
  // A record's variants are in the tree of its own collection's page: below another record, it is shown alone.
  const variants = depth === 0 ? variantsOf(site, key) : [];
  if (below.length + variants.length === 0) return `<li>${link}</li>`;
  const items =
    below.map((child) => node(site, child, href, depth + 1)).join('') +
    (variants.length === 0 ? '' : variantsLine(site, found.label, variants, href));
  // The link stays outside the summary: a link inside the control that opens the list would nest two controls.
  const count = below.length + variants.length;
  return `<li>${link}<details><summary>${count} below</summary><ul>${items}</ul></details></li>`;
}

/**
 * A record's entry in its collection page's tree, or '' when nothing is below it; `href` gives a record page's link
 * from the collection page.
 */
export function treeItem(site: HierarchySite, resource: Resource, href: (page: string) => string): string {
  if (childrenOf(site, resource, resource).length + variantsOf(site, resource).length === 0) return '';
  return node(site, resource, href, 0, resource);
}

/** The tree of a collection page's entries (treeItem), or '' when none has anything below it. */
export function treeSection(items: readonly string[]): string {
  const shown = items.filter((item) => item !== '');
  if (shown.length === 0) return '';
  return (
    '<section class="tree" aria-labelledby="hierarchy">\n<h2 id="hierarchy">Hierarchy</h2>\n' +
    `<ul>\n${shown.join('\n')}\n</ul>\n</section>\n`
  );
}
