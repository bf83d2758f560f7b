/**
 * Staging and publishing (DESIGN.md §7): a snapshot is built in a staging directory beside `--out` and renamed into
 * place only when complete, so a failed or interrupted run leaves the previous snapshot exactly as it was.
 *
 * Publishing takes two renames (`out` → `out.previous`, staged tree → `out`); a crash between them leaves
 * `out.previous`, which the next run renames back before doing anything else.
 */
import { existsSync } from 'node:fs';
import { lstat, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { OutputDirError } from '../errors.js';
import { META_DIR } from './layout.js';

export const MANIFEST_FILE = `${META_DIR}/manifest.json`;

export interface OutputPaths {
  out: string;
  /** Work directory of the run: the tree being built lives in `tree/` inside it. */
  staging: string;
  stagedTree: string;
  previous: string;
}

export function outputPaths(out: string): OutputPaths {
  const resolved = path.resolve(out);
  const staging = `${resolved}.staging`;
  return { out: resolved, staging, stagedTree: path.join(staging, 'tree'), previous: `${resolved}.previous` };
}

/** Puts back a snapshot that a crash during an earlier publish left at `out.previous`. */
export async function recoverInterruptedPublish(paths: OutputPaths): Promise<void> {
  if (existsSync(paths.previous)) {
    if (!existsSync(paths.out)) await rename(paths.previous, paths.out);
    else await rm(paths.previous, { recursive: true, force: true });
  }
}

/**
 * Refuses an `--out` that holds something other than a snapshot: replacing a user's directory would lose data.
 * An empty directory, or one with only a `.gitkeep`, is fine.
 */
export async function assertReplaceable(paths: OutputPaths): Promise<void> {
  let stats;
  try {
    stats = await lstat(paths.out);
  } catch {
    return;
  }
  if (!stats.isDirectory()) {
    throw new OutputDirError(`${paths.out} exists and is not a directory; choose another --out.`);
  }
  const entries = (await readdir(paths.out)).filter((name) => name !== '.gitkeep');
  if (entries.length === 0) return;
  if (!existsSync(path.join(paths.out, MANIFEST_FILE))) {
    throw new OutputDirError(
      `${paths.out} is not empty and holds no cv-snapshot snapshot (no ${MANIFEST_FILE}), so it will not be ` +
        'replaced; choose an empty or new directory for --out.',
    );
  }
}

/**
 * Refuses a staging tree that holds a symbolic link: a resumed crawl writes into it, and a planted link would
 * lead writes outside the output directory.
 */
export async function assertNoSymlinks(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isSymbolicLink()) {
      throw new OutputDirError(
        `${path.join(entry.parentPath, entry.name)} is a symbolic link inside the staging directory; it will not be ` +
          'written through. Remove it, or start over with --fresh.',
      );
    }
  }
}

/** Moves the staged tree into place and removes the staging directory. */
export async function publish(paths: OutputPaths): Promise<void> {
  await rm(paths.previous, { recursive: true, force: true });
  const hadPrevious = existsSync(paths.out);
  if (hadPrevious) await rename(paths.out, paths.previous);
  try {
    await rename(paths.stagedTree, paths.out);
  } catch (error) {
    if (hadPrevious) await rename(paths.previous, paths.out);
    throw new OutputDirError(`The snapshot could not be moved into ${paths.out}: ${(error as Error).message}.`);
  }
  await rm(paths.previous, { recursive: true, force: true });
  await rm(paths.staging, { recursive: true, force: true });
}
