/**
 * Removing a directory the tool made, however deep it goes. A tree can hold paths longer than the file system lets
 * a call name (4,095 bytes on Linux): an older release stored such paths in staging, and renaming the tree into the
 * generations directory, whose name is longer, lengthened them further. `rm` then fails with ENAMETOOLONG on every
 * later run. Such a tree is first flattened: its directories that lie deeper than SHALLOW_BYTES are moved up to its
 * top, which every call reaches with a short path, and then it is removed as any other.
 */
import { existsSync } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** Directories at paths longer than this are moved up; a name adds at most 255 bytes, well within 4,095. */
const SHALLOW_BYTES = 2048;

/** Removes `dir` and everything in it (symbolic links are removed, never followed); nothing there is fine. */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENAMETOOLONG') throw error;
  }
  await flatten(dir);
  await rm(dir, { recursive: true, force: true });
}

/**
 * Moves every directory below `dir` whose path is longer than SHALLOW_BYTES up to `dir` itself. The `rm` that failed
 * may still be removing parts of the tree (its rejection does not wait for the removals it had started), so an entry
 * that is gone by the time it is read or moved is passed over: it is what was to happen to it.
 */
async function flatten(dir: string): Promise<void> {
  let lifted = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop()!;
    // Entry types come from readdir: a symbolic link to a directory is not a directory here.
    const entries = await unlessGone(readdir(current, { withFileTypes: true }));
    for (const entry of entries ?? []) {
      if (!entry.isDirectory()) continue;
      const child = path.join(current, entry.name);
      if (Buffer.byteLength(child) <= SHALLOW_BYTES) {
        stack.push(child);
        continue;
      }
      let target: string;
      do target = path.join(dir, `lifted-${lifted++}`);
      while (existsSync(target));
      if ((await unlessGone(rename(child, target).then(() => true))) === true) stack.push(target);
    }
  }
}

/** What `operation` gives, or undefined when what it works on is gone (ENOENT). */
async function unlessGone<T>(operation: Promise<T>): Promise<T | undefined> {
  try {
    return await operation;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
