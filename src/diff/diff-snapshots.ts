/**
 * `diff` (issue 5): what changed between two snapshots, record by record (type + id). Streams collection by
 * collection: only one collection of each snapshot is in memory at a time, plus the changes found so far.
 */
import { withSnapshotDir } from '../archive/snapshot-dir.js';
import { byIdentity, byName, compareRecords, recordRef, renameOf, statusOf } from './compare-records.js';
import { DIFF_FORMAT_VERSION, type CollectionDiff, type DiffSide, type SnapshotDiff } from './diff-format.js';
import { openSnapshot, readCollectionRecords, type DiffRecord, type OpenSnapshot } from './read-records.js';

const NO_RECORDS: ReadonlyMap<string, DiffRecord> = new Map();

function compareCollection(
  name: string,
  before: ReadonlyMap<string, DiffRecord> | null,
  after: ReadonlyMap<string, DiffRecord> | null,
): CollectionDiff {
  const old = before ?? NO_RECORDS;
  const now = after ?? NO_RECORDS;
  const result: CollectionDiff = {
    name,
    change: before === null ? 'added' : after === null ? 'removed' : 'unchanged',
    records: { old: before === null ? null : old.size, new: after === null ? null : now.size },
    added: [],
    removed: [],
    changed: [],
    statusChanges: [],
    renamed: [],
  };
  for (const [key, record] of old) if (!now.has(key)) result.removed.push(recordRef(record));
  for (const [key, record] of now) {
    const previous = old.get(key);
    if (previous === undefined) {
      result.added.push(recordRef(record));
      continue;
    }
    const change = compareRecords(previous, record);
    if (change === null) continue;
    result.changed.push(change);
    const [oldStatus, newStatus] = [statusOf(previous), statusOf(record)];
    if (change.attributes.some((a) => a.name === 'status')) {
      result.statusChanges.push({
        type: record.type,
        id: record.id,
        label: change.label,
        old: oldStatus,
        new: newStatus,
      });
    }
    const rename = renameOf(previous, record);
    if (rename !== null) result.renamed.push({ type: record.type, id: record.id, ...rename });
  }
  for (const list of [result.added, result.removed, result.changed, result.statusChanges, result.renamed])
    list.sort(byIdentity);
  if (result.change === 'unchanged' && result.added.length + result.removed.length + result.changed.length > 0)
    result.change = 'changed';
  return result;
}

function sideOf(snapshot: OpenSnapshot, records: number): DiffSide {
  const { manifest } = snapshot;
  return {
    root: manifest.source.root,
    createdAt: manifest.createdAt,
    tool: `${manifest.tool.name} ${manifest.tool.version}`,
    etag: manifest.source.etag,
    lastModified: manifest.source.lastModified,
    partial: manifest.partial,
    records,
  };
}

/** Compares two snapshot directories. */
export async function diffSnapshotDirs(
  oldDir: string,
  newDir: string,
  names: { old: string; new: string } = { old: oldDir, new: newDir },
): Promise<SnapshotDiff> {
  const before = await openSnapshot(names.old, oldDir);
  const after = await openSnapshot(names.new, newDir);
  const collections = [
    ...new Set([...Object.keys(before.manifest.collections), ...Object.keys(after.manifest.collections)]),
  ].sort(byName);
  const diffs: CollectionDiff[] = [];
  let oldRecords = 0;
  let newRecords = 0;
  for (const name of collections) {
    const inOld = Object.hasOwn(before.manifest.collections, name);
    const inNew = Object.hasOwn(after.manifest.collections, name);
    const oldSet = inOld ? await readCollectionRecords(before, name) : null;
    const newSet = inNew ? await readCollectionRecords(after, name) : null;
    oldRecords += oldSet?.size ?? 0;
    newRecords += newSet?.size ?? 0;
    diffs.push(compareCollection(name, oldSet, newSet));
  }
  const count = (change: CollectionDiff['change']): number => diffs.filter((d) => d.change === change).length;
  const sum = (pick: (d: CollectionDiff) => unknown[]): number => diffs.reduce((n, d) => n + pick(d).length, 0);
  const summary: SnapshotDiff['summary'] = {
    collections: {
      added: count('added'),
      removed: count('removed'),
      changed: count('changed'),
      unchanged: count('unchanged'),
    },
    records: { added: sum((d) => d.added), removed: sum((d) => d.removed), changed: sum((d) => d.changed) },
    statusChanges: sum((d) => d.statusChanges),
    renamed: sum((d) => d.renamed),
  };
  return {
    format: 'cv-snapshot-diff',
    formatVersion: DIFF_FORMAT_VERSION,
    old: sideOf(before, oldRecords),
    new: sideOf(after, newRecords),
    identical: summary.collections.unchanged === diffs.length,
    summary,
    collections: diffs,
  };
}

/** Compares two snapshots, each a directory or an archive that `pack` wrote. */
export function diffSnapshots(oldSnapshot: string, newSnapshot: string): Promise<SnapshotDiff> {
  return withSnapshotDir(oldSnapshot, (oldDir) =>
    withSnapshotDir(newSnapshot, (newDir) => diffSnapshotDirs(oldDir, newDir, { old: oldSnapshot, new: newSnapshot })),
  );
}
