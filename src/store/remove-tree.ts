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

/** Moves every directory below `dir` whose path is longer than SHALLOW_BYTES up to `dir` itself. */
async function flatten(dir: string): Promise<void> {
  let lifted = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop()!;
    // Entry types come from readdir: a symbolic link to a directory is not a directory here.
    for (const entry of await readdir(current, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const child = path.join(current, entry.name);
      if (Buffer.byteLength(child) <= SHALLOW_BYTES) {
        stack.push(child);
        continue;
      }
      let target: string;
      do target = path.join(dir, `lifted-${lifted++}`);
      while (existsSync(target));
      await rename(child, target);
      stack.push(target);
    }
  }
}
