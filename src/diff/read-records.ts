/**
 * Reading a snapshot's records for `diff`, one collection at a time, through the layout module: the bare collection
 * file holds the complete collection (DESIGN.md §6), unless the snapshot was made with `--collection-index
 * first-page`, in which case the page files are read in order.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Layout } from '../snapshot/layout.js';
import { readManifest, unreadableSnapshot, type Manifest } from '../snapshot/manifest.js';
import { DiffError } from './diff-error.js';

/** The parts of a JSON:API resource object that diff compares. */
export interface DiffRecord {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
}

export interface OpenSnapshot {
  /** How the snapshot was named on the command line, for messages. */
  name: string;
  dir: string;
  manifest: Manifest;
  layout: Layout;
}

export async function openSnapshot(name: string, dir: string): Promise<OpenSnapshot> {
  let manifest: Manifest;
  try {
    manifest = await readManifest(dir);
  } catch (error) {
    throw new DiffError(unreadableSnapshot(name, error));
  }
  return { name, dir, manifest, layout: new Layout(manifest.source.root) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The files that together hold every record of `collection`, in page order. */
function collectionFiles(snapshot: OpenSnapshot, collection: string): string[] {
  const { layout, manifest } = snapshot;
  if (manifest.options.collectionIndex === 'complete') return [layout.collectionIndex(collection).file];
  const pages = manifest.collections[collection]?.pages ?? 0;
  const files: string[] = [];
  for (let page = 1; page <= pages; page += 1) {
    const placement = layout.place(`${layout.collectionUrl(collection)}?page%5Bnumber%5D=${page}`);
    if (placement.ok) files.push(placement.file);
  }
  return files;
}

async function readListDocument(snapshot: OpenSnapshot, collection: string, file: string): Promise<unknown[] | null> {
  let text: string;
  try {
    text = await readFile(path.join(snapshot.dir, ...file.split('/')), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A partial snapshot (--allow-partial) may lack a page; a collection without pages has no index built from them.
    const pages = snapshot.manifest.collections[collection]?.pages ?? 0;
    if (code === 'ENOENT' && (snapshot.manifest.partial || pages === 0)) return null;
    throw new DiffError(
      `${snapshot.name}: ${file} could not be read (${(error as Error).message}). Run cv-snapshot verify on it.`,
    );
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new DiffError(
      `${snapshot.name}: ${file} is not valid JSON (${(error as Error).message}). Run cv-snapshot verify on it.`,
    );
  }
  const data = isObject(document) ? document.data : undefined;
  if (!Array.isArray(data)) {
    throw new DiffError(
      `${snapshot.name}: ${file} is not a list document (no data array). Run cv-snapshot verify on it.`,
    );
  }
  return data;
}

/** `type` + `id`: what identifies a record across snapshots. */
export function recordKey(type: string, id: string): string {
  return `${type}\u0000${id}`;
}

/**
 * Every record of `collection`, by `recordKey`. Elements without a string type and id cannot be matched across
 * snapshots and are left out (validation reports them). A record listed twice (a source that shifted between
 * pages) counts once, as last seen.
 */
export async function readCollectionRecords(
  snapshot: OpenSnapshot,
  collection: string,
): Promise<Map<string, DiffRecord>> {
  const records = new Map<string, DiffRecord>();
  for (const file of collectionFiles(snapshot, collection)) {
    const data = await readListDocument(snapshot, collection, file);
    if (data === null) continue;
    for (const item of data) {
      if (!isObject(item) || typeof item.type !== 'string' || typeof item.id !== 'string') continue;
      records.set(recordKey(item.type, item.id), {
        type: item.type,
        id: item.id,
        attributes: isObject(item.attributes) ? item.attributes : {},
        relationships: isObject(item.relationships) ? item.relationships : {},
      });
    }
  }
  return records;
}
