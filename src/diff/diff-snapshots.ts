/**
 * `diff`: what changed between two snapshots, record by record (type + id). Streams collection by
 * collection: only one collection of each snapshot is in memory at a time, plus the changes found so far.
 */
import { withSnapshotDir, type SnapshotDirOptions } from '../archive/snapshot-dir.js';
import { throwIfStopped } from '../util/errors.js';
import { compareRecords, recordRef, renameOf, statusOf } from './compare-records.js';
import { DIFF_FORMAT_VERSION, type CollectionDiff, type DiffSide, type SnapshotDiff } from './diff-format.js';
import {
  openSnapshot,
  readCollectionRecords,
  type CollectionRecords,
  type OpenSnapshot,
} from './collection-records.js';
import { byRecordOrder, type SnapshotRecord } from '../format/records.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { shiftedOf } from '../format/partial.js';

const NO_RECORDS: ReadonlyMap<string, SnapshotRecord> = new Map();

/**
 * One collection in both snapshots (null: the snapshot lacks it). A record only one snapshot holds is added or
 * removed, unless the other snapshot is incomplete there (partial, with list pages of it missing, or its pages
 * shifted): then it is not fetched, since it may be on a page that snapshot lacks.
 */
function compareCollection(
  name: string,
  before: CollectionRecords | null,
  after: CollectionRecords | null,
  missingPages: CollectionDiff['missingPages'],
): CollectionDiff {
  const old = before?.records ?? NO_RECORDS;
  const now = after?.records ?? NO_RECORDS;
  const oldIncomplete = before?.incomplete === true || (before === null && missingPages.old.length > 0);
  const newIncomplete = after?.incomplete === true || (after === null && missingPages.new.length > 0);
  const result: CollectionDiff = {
    name,
    change: before === null && !oldIncomplete ? 'added' : after === null && !newIncomplete ? 'removed' : 'unchanged',
    records: { old: before === null ? null : old.size, new: after === null ? null : now.size },
    added: [],
    removed: [],
    changed: [],
    statusChanges: [],
    renamed: [],
    notFetched: [],
    missingPages,
    unmatched: unmatchedOf(before?.unmatched ?? [], after?.unmatched ?? []),
  };
  for (const [key, record] of old) {
    if (!now.has(key)) (newIncomplete ? result.notFetched : result.removed).push(recordRef(record));
  }
  for (const [key, record] of now) {
    const previous = old.get(key);
    if (previous === undefined) {
      (oldIncomplete ? result.notFetched : result.added).push(recordRef(record));
      continue;
    }
    const change = compareRecords(previous, record);
    if (change === null) continue;
    result.changed.push(change);
    const [oldStatus, newStatus] = [statusOf(previous), statusOf(record)];
    if (change.attributes.some((a) => a.name === 'status')) {
      const { type, id } = record;
      result.statusChanges.push({ type, id, label: change.label, old: oldStatus, new: newStatus });
    }
    const rename = renameOf(previous, record);
    if (rename !== null) result.renamed.push({ type: record.type, id: record.id, ...rename });
  }
  const lists = [result.added, result.removed, result.changed, result.statusChanges, result.renamed, result.notFetched];
  for (const list of lists) list.sort(byRecordOrder);
  // Elements that cannot be matched and are not the same in both may have changed: the collection is not unchanged.
  const differs =
    result.added.length + result.removed.length + result.changed.length + result.notFetched.length > 0 ||
    !result.unmatched.same;
  if (result.change === 'unchanged' && (differs || before === null || after === null)) result.change = 'changed';
  return result;
}
/** The elements without a type and id on each side (their hashes, sorted): counted, and the same or not. */
function unmatchedOf(old: readonly string[], now: readonly string[]): CollectionDiff['unmatched'] {
  const same = old.length === now.length && old.every((hash, i) => hash === now[i]);
  return { old: old.length, new: now.length, same };
}

function sideOf(snapshot: OpenSnapshot, records: number): DiffSide {
  const { manifest } = snapshot.reader;
  return {
    root: manifest.source.root,
    createdAt: manifest.createdAt,
    tool: `${manifest.tool.name} ${manifest.tool.version}`,
    etag: manifest.source.etag,
    lastModified: manifest.source.lastModified,
    partial: manifest.partial,
    records,
    shifted: shiftedOf(manifest),
  };
}

export interface DiffOptions extends SnapshotDirOptions {
  /** How the snapshots are named in the result and in messages (default: their paths). */
  names?: { old: string; new: string };
}

/** Compares two snapshot directories. */
export async function diffSnapshotDirs(
  oldDir: string,
  newDir: string,
  options: DiffOptions = {},
): Promise<SnapshotDiff> {
  const names = options.names ?? { old: oldDir, new: newDir };
  return diffOpenSnapshots(openSnapshot(names.old, oldDir), openSnapshot(names.new, newDir), options.signal);
}

/**
 * Compares two opened snapshots: what `diff` prints. The catalogue's Changes page feeds a SnapshotComparison the new
 * snapshot's collections as it reads them (src/pipeline/changes-since.ts).
 */
async function diffOpenSnapshots(
  before: OpenSnapshot,
  after: OpenSnapshot,
  signal?: AbortSignal,
): Promise<SnapshotDiff> {
  const comparison = new SnapshotComparison(before, after, signal);
  for (const name of after.reader.collections()) {
    await comparison.collection(name, await readCollectionRecords(after, name, signal));
  }
  return comparison.result();
}

/**
 * A comparison fed the new snapshot's collections in name order, each as its records are read (by diffOpenSnapshots,
 * or by the one read of a staged tree at finalize): the old snapshot's collection of the same name is read then, and
 * those only the old snapshot holds in their place in the order. One collection of each snapshot in memory at a time.
 */
export class SnapshotComparison {
  readonly #diffs: CollectionDiff[] = [];
  /** The old snapshot's collections not compared yet, by name. */
  readonly #oldNames: string[];
  #oldRecords = 0;
  #newRecords = 0;

  constructor(
    readonly before: OpenSnapshot,
    readonly after: OpenSnapshot,
    readonly signal?: AbortSignal,
  ) {
    this.#oldNames = before.reader.collections();
  }

  /** Compares the new snapshot's collection `name` (each name after the one before it) with the old one's. */
  async collection(name: string, newSet: CollectionRecords): Promise<void> {
    await this.#oldOnlyBefore(name);
    const inOld = this.#oldNames[0] === name;
    if (inOld) this.#oldNames.shift();
    await this.#compare(name, inOld, newSet);
  }

  /** The comparison, once every collection of the new snapshot has been given. */
  async result(): Promise<SnapshotDiff> {
    await this.#oldOnlyBefore(null);
    return summaryOf(this.#diffs, sideOf(this.before, this.#oldRecords), sideOf(this.after, this.#newRecords));
  }

  /** Compares the collections only the old snapshot holds that sort before `name` (all of them: null). */
  async #oldOnlyBefore(name: string | null): Promise<void> {
    while (this.#oldNames.length > 0 && (name === null || byCodeUnits(this.#oldNames[0]!, name) < 0)) {
      await this.#compare(this.#oldNames.shift()!, true, null);
    }
  }

  async #compare(name: string, inOld: boolean, newSet: CollectionRecords | null): Promise<void> {
    throwIfStopped(this.signal);
    const oldSet = inOld ? await readCollectionRecords(this.before, name, this.signal) : null;
    this.#oldRecords += oldSet?.records.size ?? 0;
    this.#newRecords += newSet?.records.size ?? 0;
    const { before, after } = this;
    const missingPages = { old: before.reader.missingPageUrls(name), new: after.reader.missingPageUrls(name) };
    this.#diffs.push(compareCollection(name, oldSet, newSet, missingPages));
  }
}

function summaryOf(diffs: CollectionDiff[], old: DiffSide, now: DiffSide): SnapshotDiff {
  const count = (change: CollectionDiff['change']): number => diffs.filter((d) => d.change === change).length;
  const sum = (pick: (d: CollectionDiff) => unknown[]): number => diffs.reduce((n, d) => n + pick(d).length, 0);
  const summary: SnapshotDiff['summary'] = {
    collections: {
      added: count('added'),
      removed: count('removed'),
      changed: count('changed'),
      unchanged: count('unchanged'),
    },
    records: {
      added: sum((d) => d.added),
      removed: sum((d) => d.removed),
      changed: sum((d) => d.changed),
      notFetched: sum((d) => d.notFetched),
      unmatched: diffs.reduce((n, d) => n + (d.unmatched.same ? 0 : d.unmatched.old + d.unmatched.new), 0),
    },
    statusChanges: sum((d) => d.statusChanges),
    renamed: sum((d) => d.renamed),
  };
  return {
    format: 'cv-snapshot-diff',
    formatVersion: DIFF_FORMAT_VERSION,
    old,
    new: now,
    identical: summary.collections.unchanged === diffs.length,
    summary,
    collections: diffs,
  };
}

/**
 * Compares two snapshots, each a directory or an archive that `pack` wrote (extracted into a temporary directory
 * for the time of the comparison, within `options.limits`).
 */
export function diffSnapshots(
  oldSnapshot: string,
  newSnapshot: string,
  options: SnapshotDirOptions = {},
): Promise<SnapshotDiff> {
  const names = { old: oldSnapshot, new: newSnapshot };
  const compare = (oldDir: string, newDir: string) => diffSnapshotDirs(oldDir, newDir, { ...options, names });
  const inNew = (oldDir: string) => withSnapshotDir(newSnapshot, (newDir) => compare(oldDir, newDir), options);
  return withSnapshotDir(oldSnapshot, inNew, options);
}
