/**
 * Removing a directory the tool made, however deep it goes and however many files it holds. `fs.rm` with
 * `recursive` starts the removal of every entry of a directory at once: on a 200,000-document snapshot (the old
 * generation that publishing removes) the process's resident memory climbed from 180 to 558 MB. The tree is walked
 * here instead, a directory at a time: its entries are removed with synchronous calls (on a local disk a removal is
 * a few microseconds, less than the thread pool's round trip), with a turn of the event loop between directories
 * so that a signal is still seen. Memory holds the directories still to visit, not the tree.
 *
 * A tree can also hold paths longer than the file system lets a call name (4,095 bytes on Linux): an older release
 * stored such paths in staging, and renaming the tree into the generations directory, whose name is longer,
 * lengthened them further. Such a tree is first flattened: its directories that lie deeper than SHALLOW_BYTES are
 * moved up to its top, which every call reaches with a short path, and then it is removed as any other.
 */
import { existsSync, readdirSync, rmdirSync, unlinkSync, type Dirent } from 'node:fs';
import { readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Directories at paths longer than this are moved up; a name adds at most 255 bytes, well within 4,095. */
const SHALLOW_BYTES = 2048;

/** Removes `dir` and everything in it (symbolic links are removed, never followed); nothing there is fine. */
export async function removeTree(dir: string): Promise<void> {
  try {
    await removeWalking(dir);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENAMETOOLONG') throw error;
  }
  await flatten(dir);
  await removeWalking(dir);
}

/** Removes the tree at `dir` depth first: each directory's files, then its directories, then itself. */
async function removeWalking(dir: string): Promise<void> {
  /** Directories to remove, each once its entries are gone: `listed` once they have been read. */
  const stack: Array<{ dir: string; listed: boolean }> = [{ dir, listed: false }];
  while (stack.length > 0) {
    const top = stack.at(-1)!;
    if (top.listed) {
      stack.pop();
      gone(() => rmdirSync(top.dir));
      continue;
    }
    top.listed = true;
    let entries: Dirent[];
    try {
      // Entry types come from readdir: a symbolic link to a directory is not a directory here, and is unlinked.
      entries = readdirSync(top.dir, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') gone(() => unlinkSync(top.dir));
      else if (code !== 'ENOENT') throw error;
      stack.pop();
      continue;
    }
    for (const entry of entries) {
      const child = path.join(top.dir, entry.name);
      if (entry.isDirectory() || !unlinked(child)) stack.push({ dir: child, listed: false });
    }
    await nextTurn();
  }
}

/** Unlinks `file`; false when it is a directory after all (a file system that gives no entry types). */
function unlinked(file: string): boolean {
  try {
    unlinkSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR' || code === 'EPERM') return false;
    if (code !== 'ENOENT') throw error;
  }
  return true;
}

/** Runs `operation`, passing over ENOENT: what it works on is already gone. */
function gone(operation: () => unknown): void {
  try {
    operation();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Moves every directory below `dir` whose path is longer than SHALLOW_BYTES up to `dir` itself. The walk that failed
 * has removed part of the tree: an entry that is gone by the time it is read or moved is passed over.
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
