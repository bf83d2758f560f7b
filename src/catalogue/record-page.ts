/**
 * A record's page (docs/catalogue.md): its label as the heading, its definition first, what it is a variant of, its
 * URI with a Copy button, every attribute under a human name, its community variants, relationships, the records
 * that point at it, a "Cite this term" block, and its JSON shown as text.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Layout } from '../format/layout.js';
import type { TreeWriter } from '../store/writer.js';
import { esc, isWebUrl, page, statusBadge } from './html.js';
import { fieldTitle } from './labels.js';
import { claimTag } from './names.js';
import { changeNoteHtml } from './changes-page.js';
import { flatKey } from '../flat-key.js';
import type { CatalogueRecords } from './records.js';
import { isObject, linkages, type Resource } from './resource.js';

/** Above this size (of its JSON) a record is not shown as JSON in its page, nor a stored document read. */
const MAX_SHOWN_JSON = 256 * 1024;
/** Attributes shown above the list of attributes rather than in it. */
const SHOWN_FIRST = new Set(['definition', 'description']);

/** What a record page needs to know about the whole catalogue. */
export interface RecordSite {
  layout: Layout;
  writer: TreeWriter;
  records: CatalogueRecords;
  /** The prefix of a rewritten link (`/`, the base URL), null for `original` links. */
  linkPrefix: string | null;
  /** Each collection's human name. */
  titles: Map<string, string>;
  /** The community of a community variant (its `community` linkage), by type and id. */
  communityOf: (type: string, id: string) => string | null;
  createdAt: string;
  source: string;
  /** What changed in each record since the previous snapshot, by flatKey(type, id) (changes-page.ts). */
  changes: ReadonlyMap<string, readonly string[]>;
}

export interface RecordContext {
  collection: string;
  id: string;
  resource: Resource;
  label: string;
  /** The collection page that lists the record. */
  n: number;
}

/** The stored document of the first of `urls` that the snapshot holds: its file and its parsed value. */
function storedDocument(site: RecordSite, urls: string[]): { file: string; doc: unknown } | null {
  for (const url of urls) {
    let stored;
    try {
      stored = site.layout.place(url);
    } catch {
      continue; // not a URL (a source's link may be anything)
    }
    if (!stored.ok) continue;
    try {
      const text = readFileSync(path.join(site.writer.dir, stored.file), 'utf8');
      return { file: stored.file, doc: text.length > MAX_SHOWN_JSON ? undefined : (JSON.parse(text) as unknown) };
    } catch {
      continue;
    }
  }
  return null;
}

/** The source URL a stored link stands for (links are rewritten as the snapshot was asked to), or null. */
function sourceUrlOf(link: string, site: RecordSite): string | null {
  let url = link;
  if (site.linkPrefix !== null && link.startsWith(site.linkPrefix)) {
    try {
      url = site.layout.sourceUrlOfServedPath(`/${link.slice(site.linkPrefix.length)}`);
    } catch {
      return null;
    }
  }
  return isWebUrl(url) ? url : null;
}

/** Where the snapshot stores the document at `url`, or null. */
function storedFile(site: RecordSite, url: string): string | null {
  try {
    const stored = site.layout.place(url);
    return stored.ok ? stored.file : null;
  } catch {
    return null;
  }
}

/**
 * The record's JSON, shown in its page as text: the record as its list gives it (in memory already: reading every
 * record's own document would cost a file read per record), indented for reading, with the file of the record's
 * document named. Never a link to the stored `index.html`, which a host that does not apply `_headers` (or a browser
 * opening the disk) would hand to the browser as an HTML page (docs/catalogue.md).
 */
function jsonSection(resource: Resource, collection: string, file: string | null): string {
  const json = JSON.stringify(resource.listed, null, 2);
  const where =
    `The record as the list of ${esc(collection)} gives it, indented for reading` +
    (file === null ? '.' : `; its own document is <code>${esc(file)}</code> in this snapshot.`);
  const shown =
    json.length > MAX_SHOWN_JSON
      ? `<p>It is larger than ${MAX_SHOWN_JSON / 1024} kB: open the list page or the document in a text editor.</p>\n`
      : `<pre class="json">${esc(json)}</pre>\n`;
  return `<h2 id="json">JSON</h2>\n<details>\n<summary>Show the JSON</summary>\n<p>${where}</p>\n${shown}</details>\n`;
}

function value(v: unknown): string {
  if (v === null || v === undefined || v === '') return '<span class="muted">—</span>';
  if (isWebUrl(v)) return `<a href="${esc(v)}">${esc(v)}</a>`;
  if (typeof v === 'string') return esc(v);
  return `<code>${esc(JSON.stringify(v))}</code>`;
}

/** A link to a record's page (from a record page), with its collection; or what the snapshot knows of it. */
function recordLink(site: RecordSite, target: { type: string; id: string }): string {
  const found = site.records.find(target.type, target.id);
  if (!found) return `${esc(target.type)} ${esc(target.id)} <span class="muted">(not in this snapshot's lists)</span>`;
  const title = site.titles.get(found.collection) ?? found.collection;
  return (
    `<a href="../../${esc(found.page)}">${esc(found.label)}</a> ` +
    `<span class="muted">(${esc(title)}, id ${esc(target.id)})</span>`
  );
}

/** Each relationship, its targets linked; one the list gives as links only, from its stored document. */
function relationshipsList(site: RecordSite, resource: Resource, uri: string, builtUrl: string): string {
  return Object.entries(resource.relationships)
    .map(([name, relationship]) => {
      if (!isObject(relationship)) {
        const given = `<code>${esc(JSON.stringify(relationship) ?? '')}</code>`;
        return `<dt>${esc(fieldTitle(name))}</dt><dd><span class="muted">not a relationship:</span> ${given}</dd>`;
      }
      let data: unknown;
      if ('data' in relationship) data = relationship.data;
      else {
        // Where the relationship document is: beside the record's, else where its own links.self says.
        let found = storedDocument(site, [`${uri}relationships/${name}`]);
        const links = isObject(relationship.links) ? relationship.links : {};
        const own = found === null && typeof links.self === 'string' ? sourceUrlOf(links.self, site) : null;
        if (found === null)
          found = storedDocument(site, [...(own === null ? [] : [own]), `${builtUrl}relationships/${name}`]);
        data = isObject(found?.doc) && 'data' in found.doc ? found.doc.data : undefined;
      }
      let shown: string;
      if (data === undefined) shown = '<span class="muted">given by the source as a link only</span>';
      else {
        const targets = linkages(data);
        shown =
          targets.length === 0
            ? '<span class="muted">none</span>'
            : `<ul class="plain">${targets.map((t) => `<li>${recordLink(site, t)}</li>`).join('')}</ul>`;
      }
      return `<dt>${esc(fieldTitle(name))}</dt><dd>${shown}</dd>`;
    })
    .join('\n');
}

/** "Variant of K (Units) in community TERENO", for a record whose `root` leads to a listed record. */
function variantLine(site: RecordSite, resource: Resource): string {
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
function variantsSection(site: RecordSite, resource: Resource): string {
  const variants = site.records.referrers(resource.type, resource.id).filter((r) => r.relationship === 'root');
  if (variants.length === 0) return '';
  const items = variants.map((v) => {
    const community = site.communityOf(v.type, v.id);
    const where = community === null ? '' : ` in community <strong>${esc(community)}</strong>`;
    return `<li>${recordLink(site, v)}${where}</li>`;
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
  return `<p class="status-note">${statusBadge(status)} This term is ${meaning}.</p>\n`;
}

/** "Cite this term": label, URI, collection and snapshot date, each copyable, and the whole citation. */
function citeSection(site: RecordSite, label: string, uri: string, collection: string): string {
  const title = site.titles.get(collection) ?? collection;
  // The snapshot's time is not written into the page: two crawls of an unchanged source give the same record pages.
  // The page script fills it in from _catalogue/snapshot.js; without it, the front page says it.
  const when = '<time class="snapshot-time"><a href="../../index.html">on the front page</a></time>';
  const citation = `${esc(`${label}. In: ${title}. ${uri}. Snapshot of ${site.source}, `)}${when}.`;
  const copyable = (html: string, what: string) => `<code class="copyable" data-copy="Copy ${what}">${html}</code>`;
  return (
    '<h2>Cite this term</h2>\n<dl class="cite">\n' +
    `<dt>Label</dt><dd>${copyable(esc(label), 'label')}</dd>\n` +
    `<dt>URI</dt><dd><code>${esc(uri)}</code></dd>\n` +
    `<dt>Collection</dt><dd>${copyable(esc(title), 'collection')} ` +
    `<span class="muted">(${esc(collection)})</span></dd>\n` +
    `<dt>Snapshot</dt><dd>${when}</dd>\n` +
    `<dt>Citation</dt><dd>${copyable(citation, 'citation')}</dd>\n</dl>\n`
  );
}

export function recordHtml(site: RecordSite, c: RecordContext): string {
  const { resource } = c;
  const a = resource.attributes;
  // The record's own URI (links.self), as clients store it; built from the collection's only where it gives none.
  const builtUrl = `${site.layout.collectionUrl(c.collection)}${encodeURIComponent(c.id)}/`;
  const self = resource.self === null ? null : sourceUrlOf(resource.self, site);
  const uri = self ?? builtUrl;
  const definition = [a.definition, a.description].find((d): d is string => typeof d === 'string' && d.trim() !== '');
  const title = site.titles.get(c.collection) ?? c.collection;
  const attributes = Object.entries(a)
    .filter(([name]) => !SHOWN_FIRST.has(name) || typeof a[name] !== 'string')
    .map(
      ([name, v]) =>
        `<dt>${esc(fieldTitle(name))}</dt><dd>${name === 'status' ? statusBadge(v) || value(v) : value(v)}</dd>`,
    )
    .join('\n');
  const relationships = relationshipsList(site, resource, uri, builtUrl);
  const reverse = site.records
    .referrers(resource.type, c.id)
    .map((r) => `<li>${recordLink(site, r)} <span class="muted">as ${esc(fieldTitle(r.relationship))}</span></li>`)
    .join('');
  const body =
    (definition === undefined ? '' : `<p class="definition">${esc(definition)}</p>\n`) +
    variantLine(site, resource) +
    changeNoteHtml(site.changes.get(flatKey(resource.type, c.id))) +
    `<p class="kind">${statusBadge(a.status)} ${esc(resource.type)} ${esc(c.id)} in ` +
    `<a href="page-${c.n}.html">${esc(title)}</a></p>\n` +
    statusNote(a) +
    `<dl>\n<dt>URI</dt><dd><code class="uri">${esc(uri)}</code></dd>\n` +
    '<dt>JSON</dt><dd><a href="#json">below</a></dd>\n' +
    `${attributes}\n</dl>\n` +
    variantsSection(site, resource) +
    (relationships ? `<h2>Relationships</h2>\n<dl>\n${relationships}\n</dl>\n` : '') +
    (reverse ? `<h2>Referenced by</h2>\n<ul class="plain">${reverse}</ul>\n` : '') +
    citeSection(site, c.label, uri, c.collection) +
    jsonSection(resource, c.collection, storedFile(site, uri) ?? storedFile(site, builtUrl));
  return page({
    title: `${c.label} — ${title}`,
    heading: c.label,
    head: claimTag({ collection: c.collection, type: resource.type, id: c.id, uri }, esc),
    toCatalogue: '../',
    toFront: '../../index.html',
    crumbs: [[title, `page-${c.n}.html`]],
    body,
    scripts: ['../snapshot.js', '../catalogue.js'],
  });
}
