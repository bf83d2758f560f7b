/**
 * Pages for removed records (tombstones, docs/catalogue.md#removed-records): a record the source no longer lists keeps
 * a page with its last term, status and definition and the snapshot it was removed in, linked from the Changes page;
 * `serve` answers a browser on its address with that page and 410 Gone.
 *
 * The comparison with the previous snapshot only sees the records removed since it, so each catalogue also writes the
 * tombstones it holds into `_catalogue/removed.json`, and the next crawl into the same --out carries them forward: a
 * record removed two releases ago still has its page. A record that comes back loses its tombstone (it has its page
 * again).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { removedRecordPage, TOMBSTONES_FILE, typedRemovedRecordPage } from '../format/catalogue-names.js';
import { byRecordOrder } from '../format/records.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { flatKey } from '../util/flat-key.js';
import { htmlSafeJson } from '../json/html-safe.js';
import { esc, page, snapshotTime, statusBadge } from './html.js';
import { typeTitle, type HumanNames } from './labels.js';

const tombstoneSchema = z.object({
  collection: z.string(),
  type: z.string(),
  id: z.string(),
  /** Its term (or name) as last seen; null when it had none. */
  label: z.string().nullable(),
  status: z.string().nullable(),
  definition: z.string().nullable(),
  /** Its URI as clients stored it (its `links.self`). */
  uri: z.string().nullable(),
  /** `createdAt` of the last snapshot that held it. */
  lastIn: z.string(),
  /** `createdAt` of the first snapshot without it. */
  removedIn: z.string(),
});
export type Tombstone = z.infer<typeof tombstoneSchema>;

const tombstonesFileSchema = z.object({ removed: z.array(tombstoneSchema) });

const keyOf = (t: { type: string; id: string }, collection: string): string => flatKey(collection, t.type, t.id);

/**
 * The address a removed record had: its collection and id. Two removed records share one when the record at an
 * address changed type (`Unit 7` became `Thing 7`, a removal and an addition) and the second was removed later.
 */
export const tombstoneAddress = (collection: string, id: string): string => flatKey(collection, id);

/** The tombstones written in a `removed.json`; none when the text is not one (a file changed by hand). */
export function tombstonesOfText(text: string): Tombstone[] {
  try {
    const parsed = tombstonesFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.removed : [];
  } catch {
    return [];
  }
}

/**
 * The tombstones the catalogue in `dir` kept; none when it has no such file or one that cannot be read (a catalogue
 * made before tombstones, or a file changed by hand): those records then lose their pages, and nothing else does.
 */
export function readTombstones(dir: string): Tombstone[] {
  const file = path.join(dir, ...TOMBSTONES_FILE.split('/'));
  if (!existsSync(file)) return [];
  try {
    return tombstonesOfText(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
}

/**
 * The tombstones of the new snapshot: those removed since the previous one (`fresh`), and those the previous one kept
 * (`carried`) whose record has not come back (`isBack`: the new snapshot lists it in that collection again). Sorted
 * by collection, then as records are.
 */
export function mergedTombstones(
  fresh: readonly Tombstone[],
  carried: readonly Tombstone[],
  isBack: (t: Tombstone) => boolean,
): Tombstone[] {
  const byKey = new Map<string, Tombstone>();
  for (const t of carried) if (!isBack(t)) byKey.set(keyOf(t, t.collection), t);
  for (const t of fresh) byKey.set(keyOf(t, t.collection), t);
  return [...byKey.values()].sort((a, b) => byCodeUnits(a.collection, b.collection) || byRecordOrder(a, b));
}

/** Removed first, first: a tombstone's page keeps its name in the crawls after, whatever is removed later. */
const byRemoval = (a: Tombstone, b: Tombstone): number => byCodeUnits(a.removedIn, b.removedIn) || byRecordOrder(a, b);

/**
 * Each tombstone's page, by `tombstoneKey`: `removed-<id>.html` for the record removed first from its address, and
 * for a record removed later from the same address (another type), a name with its type and id.
 */
export function tombstonePages(tombstones: readonly Tombstone[]): Map<string, string> {
  const pages = new Map<string, string>();
  const given = new Set<string>();
  for (const t of [...tombstones].sort(byRemoval)) {
    let file = removedRecordPage(t.collection, t.id);
    if (given.has(file)) file = typedRemovedRecordPage(t.collection, t.type, t.id);
    given.add(file);
    pages.set(tombstoneKey(t.collection, t), file);
  }
  return pages;
}

export const tombstoneKey = (collection: string, t: { type: string; id: string }): string => keyOf(t, collection);

/**
 * The page `serve` answers with 410 at each address (`tombstoneAddress`): that of the record removed from it last,
 * the one a client that stored the address last found there. Its page links those removed from it before.
 */
export function addressPages(tombstones: readonly Tombstone[]): Map<string, string> {
  const pages = tombstonePages(tombstones);
  const answered = new Map<string, string>();
  for (const t of [...tombstones].sort(byRemoval)) {
    answered.set(tombstoneAddress(t.collection, t.id), pages.get(tombstoneKey(t.collection, t))!);
  }
  return answered;
}

/** What a tombstone page needs of the catalogue: the collections it still has, their names, the site's title. */
export interface TombstoneSite {
  titles: ReadonlyMap<string, string>;
  names: HumanNames;
}

/** Another record removed from the same address, and the file of its page (beside this one). */
interface SameAddress {
  tombstone: Tombstone;
  page: string;
}

/** The other records removed from the address, named and linked: each keeps a page of its own. */
function sameAddressHtml(others: readonly SameAddress[]): string {
  if (others.length === 0) return '';
  const items = others.map(({ tombstone: o, page: file }) => {
    const href = esc(file.slice(file.lastIndexOf('/') + 1));
    return (
      `<li><a href="${href}">${esc(o.label ?? o.id)}</a> (${esc(typeTitle(o.type))} ${esc(o.id)}), ` +
      `removed in the snapshot of ${snapshotTime(o.removedIn).html}</li>`
    );
  });
  return `<p>Also removed from this address:</p>\n<ul class="plain">\n${items.join('\n')}\n</ul>\n`;
}

function tombstoneHtml(site: TombstoneSite, t: Tombstone, others: readonly SameAddress[]): string {
  const label = t.label ?? t.id;
  const title = site.titles.get(t.collection) ?? t.collection;
  // The collection may be gone too: its page is linked only where this catalogue has it.
  const listed = site.titles.has(t.collection);
  const collection = listed ? `<a href="page-1.html">${esc(title)}</a>` : esc(title);
  const status = t.status === null ? '' : ` Its status was ${statusBadge(t.status)}.`;
  const body =
    `<p class="removed"><strong>Removed in the snapshot of ${snapshotTime(t.removedIn).html}.</strong> ` +
    `The source no longer lists this term; it was last in the snapshot of ${snapshotTime(t.lastIn).html}.` +
    `${status}</p>\n` +
    (t.definition === null ? '' : `<p class="definition">${esc(t.definition)}</p>\n`) +
    `<p class="kind">${esc(typeTitle(t.type))} ${esc(t.id)} in ${collection}</p>\n` +
    (t.uri === null ? '' : `<dl>\n<dt>URI</dt><dd><code class="uri">${esc(t.uri)}</code></dd>\n</dl>\n`) +
    sameAddressHtml(others) +
    '<p>A client that stored its URI will find no document there now. ' +
    '<a href="../changes.html">All changes</a> · search for a replacement above.</p>\n';
  return page({
    title: `${label} (removed) — ${title}`,
    heading: label,
    toCatalogue: '../',
    toFront: '../../index.html',
    crumbs: listed ? [[title, 'page-1.html']] : [],
    body,
    site: site.names.names.site?.title,
  });
}

/** Writes each tombstone's page and the list the next crawl carries forward; the number of pages written. */
export function writeTombstones(
  write: { page: (file: string, html: string) => void; data: (file: string, text: string) => void },
  site: TombstoneSite,
  tombstones: readonly Tombstone[],
): number {
  const pages = tombstonePages(tombstones);
  const atAddress = new Map<string, SameAddress[]>();
  for (const t of tombstones) {
    const address = tombstoneAddress(t.collection, t.id);
    const shared = atAddress.get(address) ?? [];
    shared.push({ tombstone: t, page: pages.get(tombstoneKey(t.collection, t))! });
    atAddress.set(address, shared);
  }
  for (const shared of atAddress.values()) {
    for (const own of shared)
      write.page(
        own.page,
        tombstoneHtml(
          site,
          own.tombstone,
          shared.filter((o) => o !== own),
        ),
      );
  }
  // A catalogue without tombstones has no such file: most snapshots hold the same files as before.
  if (tombstones.length === 0) return 0;
  // Source text as JSON that no HTML parser reads as markup, as every stored JSON is (src/json/html-safe.ts).
  write.data(TOMBSTONES_FILE, `${htmlSafeJson(JSON.stringify({ removed: tombstones }, null, 2))}\n`);
  return tombstones.length;
}
