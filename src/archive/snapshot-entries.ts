/**
 * The entries of a snapshot directory in archive order: every directory and regular file below it, sorted by their
 * UTF-8 path bytes (not the locale, not the file system's order), so that each directory comes before its contents.
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ArchiveError } from './archive-error.js';

export interface SnapshotEntry {
  /** POSIX path relative to the snapshot directory, without a trailing slash. */
  rel: string;
  /** The same as UTF-8 bytes: what is sorted and written. */
  bytes: Buffer;
  kind: 'file' | 'dir';
  /** Size when listed; packing checks that the file still has it. */
  size: number;
}

function kindOf(stats: Awaited<ReturnType<typeof lstat>>): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  if (stats.isBlockDevice() || stats.isCharacterDevice()) return 'a device';
  return 'not a regular file';
}

async function walk(root: string, relDir: string, into: SnapshotEntry[]): Promise<void> {
  const names = await readdir(relDir === '' ? root : path.join(root, ...relDir.split('/')));
  await Promise.all(
    names.map(async (name) => {
      const rel = relDir === '' ? name : `${relDir}/${name}`;
      if (name.includes('\uFFFD')) {
        throw new ArchiveError(`${rel} in ${root} has a file name that is not valid UTF-8; rename or remove it, then pack again.`);
      }
      const stats = await lstat(path.join(root, ...rel.split('/')));
      if (stats.isDirectory()) {
        into.push({ rel, bytes: Buffer.from(rel, 'utf8'), kind: 'dir', size: 0 });
        await walk(root, rel, into);
      } else if (stats.isFile()) {
        into.push({ rel, bytes: Buffer.from(rel, 'utf8'), kind: 'file', size: stats.size });
      } else {
        throw new ArchiveError(
          `${rel} in ${root} is ${kindOf(stats)}; a snapshot archive holds only directories and regular files ` +
            '(crawl never writes anything else), so remove it and pack again.',
        );
      }
    }),
  );
}

export async function listSnapshotEntries(root: string): Promise<SnapshotEntry[]> {
  const entries: SnapshotEntry[] = [];
  await walk(root, '', entries);
  // A path sorts before every path it is a prefix of, so a directory precedes its contents.
  return entries.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
}
