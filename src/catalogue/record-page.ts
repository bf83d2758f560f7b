/**
 * A record's page (docs/catalogue.md): its label as the heading, its definition first, what it is a variant of, its
 * URI with a Copy button, every attribute under a human name, its community variants, relationships, the records
 * that point at it, a "Cite this term" block, and its JSON shown as text.
 */
import { flatKey } from '../util/flat-key.js';
import { alternates, esc, escText, isWebUrl, page, statusBadge } from './html.js';
import { MAX_SHOWN_JSON, recordUris, storedFile, type TreeSite } from './stored.js';
import { typeTitle, type HumanNames } from './labels.js';
import { claimTag, collectionFolder } from '../format/catalogue-names.js';
import { downloadFile } from '../export/downloads.js';
import path from 'node:path';
import { changeNoteHtml, type ChangeNote } from './changes-page.js';
import { breadcrumbPath } from './hierarchy.js';
import type { CatalogueRecords, Referrer } from './records.js';
import { isObject } from '../json/is-object.js';
import { linkagesOf as linkages, type SnapshotRecord } from '../format/records.js';

/** Attributes shown above the list of attributes rather than in it. */
const SHOWN_FIRST = new Set(['definition', 'description']);

/** What a record page needs to know about the whole catalogue. */
export interface RecordSite extends TreeSite {
  records: CatalogueRecords;
  /**
   * Where the relationships the lists give with links only lead, read in pass 1 (SnapshotReader.relationshipData), by
   * `flatKey(type, id, relationship)`: the linkage, or undefined where the snapshot holds no document of it. A
   * relationship not here leads nowhere (its documents say `data: null`).
   */
  linksOnly: ReadonlyMap<string, unknown>;
  /** Each collection's human name. */
  titles: Map<string, string>;
  /** Names for people of fields and relationships (the user's, else derived). */
  names: HumanNames;
  /** The community of a community variant (its `community` linkage), by type and id. */
  communityOf: (type: string, id: string) => string | null;
  createdAt: string;
  source: string;
  /** What changed in each record since the previous snapshot, by flatKey(type, id) (changes-page.ts). */
  changes: ReadonlyMap<string, ChangeNote>;
}

export interface RecordContext {
  collection: string;
  id: string;
  resource: SnapshotRecord;
  label: string;
  /** The collection page that lists the record. */
  n: number;
}

/**
 * The record's JSON, shown in its page as text: the record as its list gives it (in memory already: reading every
 * record's own document would cost a file read per record), indented for reading, with the file of the record's
 * document named. Never a link to the stored `index.html`, which a host that does not apply `_headers` (or a browser
 * opening the disk) would hand to the browser as an HTML page (docs/catalogue.md).
 */
function jsonSection(resource: SnapshotRecord, collection: string, file: string | null): string {
  const json = JSON.stringify(resource.listed, null, 2);
  const where =
    `The record as the list of ${esc(collection)} gives it, indented for reading` +
    (file === null ? '.' : `; its own document is <code>${esc(file)}</code> in this snapshot.`);
  const shown =
    json.length > MAX_SHOWN_JSON
      ? `<p>It is larger than ${MAX_SHOWN_JSON / 1024} kB: open the list page or the document in a text editor.</p>\n`
      : `<pre class="json">${escText(json)}</pre>\n`;
  return `<h2 id="json">JSON</h2>\n<details>\n<summary>Show the JSON</summary>\n<p>${where}</p>\n${shown}</details>\n`;
}

/** Whether an attribute's value says nothing (null, empty text, an empty list or object): its row is left out. */
function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

function value(v: unknown): string {
  if (isWebUrl(v)) return `<a href="${esc(v)}">${esc(v)}</a>`;
  if (typeof v === 'string') return esc(v);
  return `<code>${esc(JSON.stringify(v))}</code>`;
}

/**
 * Records as the end of a sentence: each label linked to its page, then its collection's name in brackets, once for
 * a run of records of one collection ("A, B (Action types); K (Units)"); a record no list holds, by type and id.
 */
function targetsHtml(site: RecordSite, targets: ReadonlyArray<{ type: string; id: string }>): string {
  const runs: Array<{ collection: string | null; items: string[] }> = [];
  for (const target of targets) {
    const found = site.records.find(target.type, target.id);
    const item = found
      ? `<a href="../../${esc(found.page)}">${esc(found.label)}</a>`
      : `${esc(target.type)} ${esc(target.id)} <span class="muted">(not in this snapshot's lists)</span>`;
    const collection = found ? found.collection : null;
    const last = runs.at(-1);
    if (last !== undefined && collection !== null && last.collection === collection) last.items.push(item);
    else runs.push({ collection, items: [item] });
  }
  return runs
    .map(({ collection, items }) => {
      if (collection === null) return items.join(', ');
      const title = site.titles.get(collection) ?? collection;
      return `${items.join(', ')} <span class="muted">(${esc(title)})</span>`;
    })
    .join('; ');
}

/** Records shown in a line of relationships before the rest are collapsed ("and 9 more"). */
const SHOWN_TARGETS = 6;

/**
 * `targetsHtml`, the records past the first few collapsed under "and N more", so that a record that many records
 * point at still reads on a phone in about a screen and a half.
 */
function collapsedTargetsHtml(site: RecordSite, targets: ReadonlyArray<{ type: string; id: string }>): string {
  if (targets.length <= SHOWN_TARGETS + 1) return targetsHtml(site, targets);
  const rest = targets.slice(SHOWN_TARGETS);
  return (
    `${targetsHtml(site, targets.slice(0, SHOWN_TARGETS))}\n<details class="more-targets">` +
    `<summary>and ${rest.length} more</summary>${targetsHtml(site, rest)}</details>`
  );
}

/** A field's or relationship's name for people; where the user gave it (`--names`), its API name beside it. */
function fieldName(site: RecordSite, name: string, as: 'field' | 'relation'): string {
  const shown = esc(as === 'field' ? site.names.field(name) : site.names.relation(name));
  return site.names.namesField(name) ? `${shown} <code class="api-name">${esc(name)}</code>` : shown;
}

/** Each relationship as a line "Successor: K (Units)"; one the list gives as links only, from its stored documents. */
function relationshipsList(site: RecordSite, resource: SnapshotRecord): string {
  return Object.entries(resource.relationships)
    .map(([name, relationship]) => {
      if (!isObject(relationship)) {
        const given = `<code>${esc(JSON.stringify(relationship) ?? '')}</code>`;
        const not = '<span class="muted">not a relationship:</span>';
        return `<dt>${fieldName(site, name, 'relation')}</dt><dd>${not} ${given}</dd>`;
      }
      const key = flatKey(resource.type, resource.id, name);
      const data =
        'data' in relationship ? relationship.data : site.linksOnly.has(key) ? site.linksOnly.get(key) : null;
      let shown: string;
      if (data === undefined) {
        const links = isObject(relationship.links) ? relationship.links : {};
        const related = [links.related, links.self].find((l): l is string => typeof l === 'string');
        shown =
          '<span class="muted">given by the source as a link only, which this snapshot does not hold</span>' +
          (related === undefined ? '' : `: <code>${esc(related)}</code>`);
      } else {
        const targets = linkages(data);
        // A relationship that leads nowhere says nothing about the record: its line is left out.
        if (targets.length === 0) return '';
        shown = collapsedTargetsHtml(site, targets);
      }
      return `<dt>${fieldName(site, name, 'relation')}</dt><dd>${shown}</dd>`;
    })
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * "Referenced by 3 records", each line the relationship seen from here ("Unit of: A, B (Measured quantity units)"),
 * in the order the lists gave the records. A root term's variants are left out: "Community variants" lists them.
 */
function referencedBySection(site: RecordSite, resource: SnapshotRecord): string {
  const referrers = site.records.referrers(resource.type, resource.id).filter((r) => r.relationship !== 'root');
  if (referrers.length === 0) return '';
  const byRelationship = new Map<string, Referrer[]>();
  for (const r of referrers) {
    const group = byRelationship.get(r.relationship);
    if (group === undefined) byRelationship.set(r.relationship, [r]);
    else group.push(r);
  }
  const lines = [...byRelationship].map(
    ([name, from]) => `<dt>${esc(site.names.reverse(name))}</dt><dd>${collapsedTargetsHtml(site, from)}</dd>`,
  );
  // A record that points here under two relationships is one record.
  const records = new Set(referrers.map((r) => flatKey(r.type, r.id))).size;
  const count = `${records} ${records === 1 ? 'record' : 'records'}`;
  return `<h2 id="referenced-by">Referenced by ${count}</h2>\n<dl class="relations">\n${lines.join('\n')}\n</dl>\n`;
}

/** "Variant of K (Units) in community TERENO", for a record whose `root` leads to a listed record. */
function variantLine(site: RecordSite, resource: SnapshotRecord): string {
  const root = resource.relationships.root;
  const target = isObject(root) ? linkages(root.data)[0] : undefined;
  const found = target && site.records.find(target.type, target.id);
  if (!target || !found) return '';
  const community = site.communityOf(resource.type, resource.id);
  return (
    `<p class="variant">Variant of <a href="../../${esc(found.page)}">${esc(found.label)}</a> ` +
    `(${esc(site.titles.get(found.collection) ?? found.collection)})` +
    (community === null ? '' : ` in community ${esc(community)}`) +
    '.</p>\n'
  );
}

/** A root term's community variants: the records whose `root` leads to it, each with its community. */
function variantsSection(site: RecordSite, resource: SnapshotRecord): string {
  const variants = site.records.referrers(resource.type, resource.id).filter((r) => r.relationship === 'root');
  if (variants.length === 0) return '';
  const items = variants.map((v) => {
    const community = site.communityOf(v.type, v.id);
    const where = community === null ? '' : ` in community <strong>${esc(community)}</strong>`;
    // Every variant is in the same collection, which the heading names: a link to its page is enough.
    const found = site.records.find(v.type, v.id);
    const named = found ? `<a href="../../${esc(found.page)}">${esc(found.label)}</a>` : targetsHtml(site, [v]);
    return `<li>${named}${where}</li>`;
  });
  return `<h2>Community variants</h2>\n<ul class="plain">${items.join('')}</ul>\n`;
}

/** What a status other than ACCEPTED means, from the record's own data. */
function statusNote(a: Record<string, unknown>): string {
  const status = a.status;
  if (typeof status !== 'string' || status === 'ACCEPTED') return '';
  const by = typeof a.requested_by_email === 'string' && a.requested_by_email !== '' ? a.requested_by_email : null;
  const meaning =
    status === 'PENDING'
      ? `requested${by === null ? '' : ` by ${esc(by)}`} and not yet accepted by the vocabulary's editors: ` +
        'it may still change or be refused'
      : "not accepted by the vocabulary's editors";
  return `<p class="status-note">This term is ${meaning}.</p>\n`;
}

/**
 * "Cite this term": label, URI, collection and snapshot date, each copyable, and the whole citation, collapsed (as the
 * JSON is) so that a record reads on a phone in about a screen and a half: all of it is said elsewhere on the page.
 */
function citeSection(site: RecordSite, label: string, uri: string, collection: string): string {
  const title = site.titles.get(collection) ?? collection;
  // The snapshot's time is not written into the page: two crawls of an unchanged source give the same record pages.
  // The page script fills it in from _catalogue/snapshot.js; without it, the front page says it.
  const when = '<time class="snapshot-time"><a href="../../index.html">on the front page</a></time>';
  const citation = `${esc(`${label}. In: ${title}. ${uri}. Snapshot of ${site.source}, `)}${when}.`;
  const copyable = (html: string, what: string) => `<code class="copyable" data-copy="Copy ${what}">${html}</code>`;
  return (
    '<details id="cite" class="cite">\n<summary>Cite this term</summary>\n<dl class="cite">\n' +
    `<dt>Label</dt><dd>${copyable(esc(label), 'label')}</dd>\n` +
    `<dt>URI</dt><dd><code>${esc(uri)}</code></dd>\n` +
    `<dt>Collection</dt><dd>${copyable(esc(title), 'collection')} ` +
    `<span class="muted">(${esc(collection)})</span></dd>\n` +
    `<dt>Snapshot</dt><dd>${when}</dd>\n` +
    `<dt>Citation</dt><dd>${copyable(citation, 'citation')}</dd>\n</dl>\n</details>\n`
  );
}

/**
 * On paper, where the header and the address bar are not: where the record comes from and when (the time filled in
 * from _catalogue/snapshot.js, as in the citation).
 */
function printedFrom(site: RecordSite): string {
  return (
    `<p class="print-only printed">From a snapshot of <code>${esc(site.source)}</code> taken ` +
    '<time class="snapshot-time">as its front page says</time>, made with cv-snapshot.</p>\n'
  );
}

/**
 * "Replaced by K (Units)." at the top of a record whose `successor` leads to a record, as a deprecated concept is
 * marked: the successor named and linked.
 */
function replacedNote(site: RecordSite, resource: SnapshotRecord): string {
  const relationship = resource.relationships.successor;
  if (!isObject(relationship)) return '';
  const key = flatKey(resource.type, resource.id, 'successor');
  const data = 'data' in relationship ? relationship.data : site.linksOnly.get(key);
  const targets = linkages(data);
  if (targets.length === 0) return '';
  return (
    `<p class="replaced"><strong>Replaced by ${targetsHtml(site, targets)}.</strong> ` +
    'This term is kept for the records that still use it.</p>\n'
  );
}

const downloadLinks = new Map<string, { head: string; links: string }>();

/** The links to the downloads of a record's collection, the same on each of its pages: made once a collection. */
function collectionDownloads(collection: string): { head: string; links: string } {
  let links = downloadLinks.get(collection);
  if (links === undefined) {
    const folder = collectionFolder(collection);
    links = alternates((format) => path.posix.relative(folder, downloadFile(collection, format)));
    // A snapshot has some tens of collections; a hostile one could have many: the cache stays small.
    if (downloadLinks.size < 10_000) downloadLinks.set(collection, links);
  }
  return links;
}

export function recordHtml(site: RecordSite, c: RecordContext): string {
  const { resource } = c;
  const a = resource.attributes;
  // The record's own URI (links.self), as clients store it; built from the collection's only where it gives none.
  const { uri, built: builtUrl } = recordUris(site, c.collection, resource);
  const definition = [a.definition, a.description].find((d): d is string => typeof d === 'string' && d.trim() !== '');
  const title = site.titles.get(c.collection) ?? c.collection;
  // What the page shows elsewhere is not listed again: the label (the heading), the definition, the status.
  const attributes = Object.entries(a)
    .filter(([name, v]) => !isEmpty(v) && name !== 'status' && !(typeof v === 'string' && v === c.label))
    .filter(([name]) => !SHOWN_FIRST.has(name) || typeof a[name] !== 'string')
    .map(([name, v]) => `<dt>${fieldName(site, name, 'field')}</dt><dd>${value(v)}</dd>`)
    .join('\n');
  const relationships = relationshipsList(site, resource);
  const downloads = collectionDownloads(c.collection);
  const body =
    replacedNote(site, resource) +
    (definition === undefined ? '' : `<p class="definition">${esc(definition)}</p>\n`) +
    variantLine(site, resource) +
    changeNoteHtml(site.changes.get(flatKey(resource.type, c.id))) +
    `<p class="kind">${statusBadge(a.status)} ${esc(typeTitle(resource.type))} ${esc(c.id)} in ` +
    `<a href="page-${c.n}.html">${esc(title)}</a> · <a href="#json">JSON</a></p>\n` +
    statusNote(a) +
    `<dl>\n<dt>URI</dt><dd><code class="uri">${esc(uri)}</code></dd>\n` +
    `<dt>Download</dt><dd>${downloads.links} <span class="muted">(its collection)</span></dd>\n` +
    `${attributes}\n</dl>\n` +
    variantsSection(site, resource) +
    (relationships ? `<h2>Relationships</h2>\n<dl class="relations">\n${relationships}\n</dl>\n` : '') +
    referencedBySection(site, resource) +
    citeSection(site, c.label, uri, c.collection) +
    jsonSection(resource, c.collection, storedFile(site, uri) ?? storedFile(site, builtUrl)) +
    printedFrom(site);
  return page({
    title: `${c.label} — ${title}`,
    heading: c.label,
    head: claimTag({ collection: c.collection, type: resource.type, id: c.id, uri }, esc) + downloads.head,
    toCatalogue: '../',
    toFront: '../../index.html',
    crumbs: breadcrumbPath(site, resource) ?? [[title, `page-${c.n}.html`]],
    body,
    scripts: ['../snapshot.js', '../catalogue.js'],
    site: site.names.names.site?.title,
  });
}
