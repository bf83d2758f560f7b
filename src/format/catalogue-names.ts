/**
 * The catalogue's file names (docs/catalogue.md): one name per collection and per record, never shared, on any file
 * system (Windows and macOS compare names without case). A name made only of lower-case letters, digits, `-` and `_`
 * (up to 100 characters, not a Windows device name) is kept as it is; any other becomes `x.` and 32 hex digits of its
 * SHA-256. Kept names hold no dot, so the two kinds never meet, and no two names differ only in case.
 *
 * Each record page names its record in a `<meta name="cv-snapshot-record">` (collection, type, id and URI as JSON),
 * and `verify` checks that the page's file is the one the catalogue gives that record (`recordPageProblem`).
 */
import { createHash } from 'node:crypto';
import { CATALOGUE_DIR, INDEX_FILE, type Layout } from './layout.js';

const KEPT = /^[a-z0-9_-]{1,100}$/;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
/** The name of a record page's claim: `<meta name="…" content="{json}">`. */
const CLAIM = 'cv-snapshot-record';

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * A file name for a collection or a record id: the name itself when plainly safe, else a stable digest. The
 * catalogue's pages and the export's downloads (src/export/downloads.ts) both name their files with it.
 */
export function fileName(name: string): string {
  return KEPT.test(name) && !WINDOWS_DEVICE.test(name) ? name : `x.${digest(name)}`;
}

/** The page a browser gets, with 404, for an address the snapshot has no document for (src/serve/answer.ts). */
export const NOT_FOUND_PAGE = `${CATALOGUE_DIR}/not-found.html`;

export function collectionFolder(collection: string): string {
  return `${CATALOGUE_DIR}/${fileName(collection)}`;
}

/** The page of the first record of a collection with this id: `r-<name>.html`. */
export function recordPage(collection: string, id: string): string {
  return `${collectionFolder(collection)}/r-${fileName(id)}.html`;
}

/**
 * The page of a record whose id an earlier record of another type in the same collection has (`Unit 7` and `Thing 7`):
 * `r-t.<digest of type and id>.html`, which no `r-<name>.html` can be.
 */
export function typedRecordPage(collection: string, type: string, id: string): string {
  return `${collectionFolder(collection)}/r-t.${digest(JSON.stringify([type, id]))}.html`;
}

/**
 * The page a record removed from the source keeps (a tombstone, src/catalogue/tombstones.ts): `removed-<name>.html`,
 * beside the collection's pages, which no record page's name can be; `serve` answers a browser on the removed
 * record's address with it.
 */
export function removedRecordPage(collection: string, id: string): string {
  return `${collectionFolder(collection)}/removed-${fileName(id)}.html`;
}

/**
 * The removed records a catalogue keeps pages for (src/catalogue/tombstones.ts), read by the next crawl into the same
 * --out, which carries them forward, and by `serve`, which finds the page for a removed record's address in it.
 */
export const TOMBSTONES_FILE = `${CATALOGUE_DIR}/removed.json`;

/** The tombstone of a record removed from an address that a record of another type, removed earlier, had. */
export function typedRemovedRecordPage(collection: string, type: string, id: string): string {
  return `${collectionFolder(collection)}/removed-t.${digest(JSON.stringify([type, id]))}.html`;
}

export function collectionPage(collection: string, n: number): string {
  return `${collectionFolder(collection)}/page-${n}.html`;
}

/** The front page: the snapshot's own index.html, at the root of the tree. */
export const FRONT_PAGE = INDEX_FILE;

/**
 * The catalogue file for the root (no collection), a collection's first page, or a record, where a snapshot of
 * `layout` has a catalogue at all (it may have been left out: check the file exists).
 */
export function catalogueFileOf(layout: Layout, of: { collection?: string; id?: string }): string | null {
  if (!layout.hasCatalogueRoom()) return null;
  if (of.collection === undefined) return FRONT_PAGE;
  return of.id === undefined ? collectionPage(of.collection, 1) : recordPage(of.collection, of.id);
}

/** Which record a page is for, as written into the page. */
export interface RecordClaim {
  collection: string;
  type: string;
  id: string;
  uri: string;
}

export function claimTag(claim: RecordClaim, esc: (text: string) => string): string {
  const content = JSON.stringify([claim.collection, claim.type, claim.id, claim.uri]);
  return `<meta name="${CLAIM}" content="${esc(content)}">\n`;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The claim a page makes, or null when it makes none that can be read. */
function readClaim(html: string): RecordClaim | null {
  const match = new RegExp(`<meta name="${CLAIM}" content="([^"]*)">`).exec(html);
  if (!match) return null;
  try {
    const value: unknown = JSON.parse(match[1]!.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!));
    if (!Array.isArray(value) || value.length !== 4) return null;
    const [collection, type, id, uri] = value as unknown[];
    if (typeof collection !== 'string' || typeof type !== 'string' || typeof id !== 'string') return null;
    return typeof uri === 'string' ? { collection, type, id, uri } : null;
  } catch {
    return null;
  }
}

/** Whether a tree file is a catalogue record page. */
export function isRecordPage(file: string): boolean {
  return new RegExp(`^${CATALOGUE_DIR}/[^/]+/r-[^/]+\\.html$`).test(file);
}

/** What a page's claim is kept by in SeenPages: its record's type and id (a record has one page in a catalogue). */
function recordKey(claim: RecordClaim): string {
  return JSON.stringify([claim.type, claim.id]);
}

/** The record a page is for, as recordPageProblem keeps it in SeenPages; null when the page names none. */
export function recordOfPage(html: string): string | null {
  const claim = readClaim(html);
  return claim === null ? null : recordKey(claim);
}

/** The record pages checked so far, by record: a Map, or anything that keeps them as one does (verify's). */
export interface SeenPages {
  get(record: string): string | undefined;
  set(record: string, file: string): unknown;
}

/**
 * What is wrong with a record page (`file`, its text) and the pages checked before it (`seen`: record → page): it
 * names no record, a record whose page has another name, or a record another page is for already. Null when sound.
 */
export function recordPageProblem(file: string, html: string, seen: SeenPages): string | null {
  const claim = readClaim(html);
  const rebuild = 'Rebuild the catalogue (cv-snapshot catalogue <snapshot> --out <dir>), or crawl again.';
  if (claim === null) return `${file} does not say which record it is for (an older catalogue?). ${rebuild}`;
  const named = `${claim.type} ${JSON.stringify(claim.id)} of ${claim.collection}`;
  const names = [recordPage(claim.collection, claim.id), typedRecordPage(claim.collection, claim.type, claim.id)];
  if (!names.includes(file)) return `${file} is the page of ${named}, whose page has another name. ${rebuild}`;
  const key = recordKey(claim);
  const other = seen.get(key);
  if (other !== undefined) return `${file} and ${other} are both the page of ${named}. ${rebuild}`;
  seen.set(key, file);
  return null;
}
