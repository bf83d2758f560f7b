/**
 * The entries of a snapshot directory in archive order: every directory and regular file below it, sorted by their
 * UTF-8 path bytes (not the locale, not the file system's order), so that each directory comes before its contents.
 */
import { lstatSync, type Stats } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { ArchiveError } from './archive-error.js';

export interface SnapshotEntry {
  /** POSIX path relative to the snapshot directory, without a trailing slash. */
  rel: string;
  kind: 'file' | 'dir';
  /** Size when listed; packing checks that the file still has it. */
  size: number;
}

/** UTF-16 code unit → a key that orders like the code point (and so like UTF-8 bytes): surrogates go above U+FFFF. */
function unitKey(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/**
 * Orders strings as their UTF-8 bytes would (Buffer.compare), without making a Buffer per path: JS's own `<`
 * compares UTF-16 code units, which puts U+E000–U+FFFF after characters beyond U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitKey(x) - unitKey(y);
  }
  return a.length - b.length;
}

function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  if (stats.isBlockDevice() || stats.isCharacterDevice()) return 'a device';
  return 'not a regular file';
}

async function walk(root: string, relDir: string, into: SnapshotEntry[]): Promise<void> {
  const dirents = await readdir(relDir === '' ? root : path.join(root, ...relDir.split('/')), { withFileTypes: true });
  await Promise.all(
    dirents.map(async (dirent) => {
      const rel = relDir === '' ? dirent.name : `${relDir}/${dirent.name}`;
      if (dirent.name.includes('\uFFFD')) {
        throw new ArchiveError(
          `${rel} in ${root} has a file name that is not valid UTF-8; rename or remove it, then pack again.`,
        );
      }
      if (dirent.isDirectory()) {
        into.push({ rel, kind: 'dir', size: 0 });
        await walk(root, rel, into);
        return;
      }
      // lstatSync: a snapshot holds many small files, and one sync lstat costs a fraction of a promise round trip.
      const stats = lstatSync(path.join(root, ...rel.split('/')));
      if (!stats.isFile()) {
        throw new ArchiveError(
          `${rel} in ${root} is ${kindOf(stats)}; a snapshot archive holds only directories and regular files ` +
            '(crawl never writes anything else), so remove it and pack again.',
        );
      }
      into.push({ rel, kind: 'file', size: stats.size });
    }),
  );
}

export async function listSnapshotEntries(root: string): Promise<SnapshotEntry[]> {
  const entries: SnapshotEntry[] = [];
  await walk(root, '', entries);
  // A path sorts before every path it is a prefix of, so a directory precedes its contents.
  return entries.sort((a, b) => compareUtf8(a.rel, b.rel));
}
