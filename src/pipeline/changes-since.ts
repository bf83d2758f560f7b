/**
 * What the catalogue's Changes page compares (docs/catalogue.md#changes): the snapshot being made, in its staged tree
 * with its manifest not yet written, against the snapshot --out held when the run started, through `diff`'s own
 * comparison (src/diff/). Until the new snapshot is published, --out still names the previous one; publishing keeps
 * it as the previous generation. Two crawls into new folders compare with nothing, so their trees stay identical.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CatalogueChanges } from '../catalogue/changes-page.js';
import { noComparison, type ChangesFeed } from '../catalogue/first-pass.js';
import { SnapshotComparison } from '../diff/diff-snapshots.js';
import {
  openSnapshot,
  readCollectionRecords,
  type CollectionRecords,
  type OpenSnapshot,
} from '../diff/collection-records.js';
import type { SnapshotDiff } from '../diff/diff-format.js';
import { mergedTombstones, readTombstones, type Tombstone } from '../catalogue/tombstones.js';
import { namedLabel, type SnapshotRecord } from '../format/records.js';
import { flatKey } from '../util/flat-key.js';
import { MANIFEST_PATH, type Manifest } from '../format/manifest.js';
import { SUMS_PATH } from '../store/sums.js';
import type { OutInspection, OutputPaths } from '../store/output-dir.js';

/** The snapshot --out holds before a run publishes (its path, which still names it), or null when it holds none. */
export function previousSnapshot(paths: OutputPaths, before: OutInspection): string | null {
  const hasSnapshot = before.state.kind === 'link' || existsSync(path.join(paths.out, ...SUMS_PATH.split('/')));
  return before.state.kind !== 'absent' && hasSnapshot ? paths.out : null;
}

/** The manifest member that says what the Changes page compared with. */
export function changesMember(changes: CatalogueChanges): NonNullable<Manifest['changes']> {
  return { against: changes.against };
}

/**
 * The comparison of the staged snapshot with `previous` (a snapshot directory, or null), fed the staged snapshot's
 * collections by the catalogue's first read of them (src/catalogue/first-pass.ts), so that the new snapshot is not
 * read again for it. A previous snapshot that cannot be read as one (edited by hand, written by something else) is
 * not compared, and the page says so: it never stops the run that replaces it.
 */
export function changesSince(
  previous: string | null,
  staged: { dir: string; manifest: Manifest },
  signal?: AbortSignal,
): ChangesFeed {
  if (previous === null || !existsSync(path.join(previous, ...MANIFEST_PATH.split('/')))) return noComparison('first');
  let comparison: SnapshotComparison;
  try {
    const before = openSnapshot(`the previous snapshot in ${previous}`, previous);
    comparison = new SnapshotComparison(before, openSnapshot('the new snapshot', staged.dir, staged.manifest), signal);
  } catch {
    return noComparison('unreadable');
  }
  return new PreviousSnapshotFeed(comparison, previous, staged.manifest.createdAt, signal);
}

/** The comparison with a previous snapshot, which ends in "not compared" as soon as reading that one fails. */
class PreviousSnapshotFeed implements ChangesFeed {
  #comparison: SnapshotComparison | null;

  constructor(
    comparison: SnapshotComparison,
    readonly previous: string,
    readonly createdAt: string,
    readonly signal: AbortSignal | undefined,
  ) {
    this.#comparison = comparison;
  }

  get comparing(): boolean {
    return this.#comparison !== null;
  }

  async collection(name: string, records: CollectionRecords): Promise<void> {
    await this.#unlessUnreadable((comparison) => comparison.collection(name, records));
  }

  async result(): Promise<CatalogueChanges> {
    const comparison = this.#comparison;
    const compared = await this.#unlessUnreadable(async (c) => {
      const diff = await c.result();
      const tombstones = mergedTombstones(
        await removedRecords(c.before, diff, this.createdAt, this.signal),
        readTombstones(this.previous),
        comesBack(diff),
      );
      return { diff, tombstones };
    });
    if (comparison === null || compared === undefined) return { against: null, why: 'unreadable' };
    const { manifest } = comparison.before.reader;
    return { against: { root: manifest.source.root, createdAt: manifest.createdAt }, ...compared };
  }

  /**
   * Runs a step of the comparison. Whatever the previous snapshot holds (edited by hand, damaged, another tool's)
   * ends in "not compared", never in a crawl that fails after every document is fetched; only the signal stops it.
   */
  async #unlessUnreadable<T>(step: (comparison: SnapshotComparison) => Promise<T>): Promise<T | undefined> {
    if (this.#comparison === null) return undefined;
    try {
      return await step(this.#comparison);
    } catch (error) {
      if (this.signal?.aborted === true) throw error;
      this.#comparison = null;
      return undefined;
    }
  }
}

/**
 * The records removed since the previous snapshot as their tombstones keep them: last term, status and definition.
 * The comparison keeps only the identity of a removed record, so the previous snapshot's collections that lost records
 * are read once more (none when nothing was removed).
 */
async function removedRecords(
  before: OpenSnapshot,
  diff: SnapshotDiff,
  removedIn: string,
  signal?: AbortSignal,
): Promise<Tombstone[]> {
  const tombstones: Tombstone[] = [];
  for (const c of diff.collections) {
    if (c.removed.length === 0) continue;
    const { records } = await readCollectionRecords(before, c.name, signal);
    for (const ref of c.removed) {
      const record = records.get(flatKey(ref.type, ref.id));
      if (record === undefined) continue;
      tombstones.push(tombstoneOf(before, c.name, record, removedIn));
    }
  }
  return tombstones;
}

function tombstoneOf(before: OpenSnapshot, collection: string, record: SnapshotRecord, removedIn: string): Tombstone {
  const a = record.attributes;
  const definition = [a.definition, a.description].find((d): d is string => typeof d === 'string' && d.trim() !== '');
  return {
    collection,
    type: record.type,
    id: record.id,
    label: namedLabel(record),
    status: typeof a.status === 'string' ? a.status : null,
    definition: definition ?? null,
    uri: before.reader.recordUris(collection, record).uri,
    lastIn: before.reader.manifest.createdAt,
    removedIn,
  };
}

/** Whether the new snapshot lists a record that an earlier tombstone kept a page for: it has its own page again. */
function comesBack(diff: SnapshotDiff): (t: Tombstone) => boolean {
  const back = new Set<string>();
  for (const c of diff.collections) {
    for (const r of [...c.added, ...c.notFetched]) back.add(flatKey(c.name, r.type, r.id));
  }
  return (t) => back.has(flatKey(t.collection, t.type, t.id));
}
