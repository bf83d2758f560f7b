/**
 * Publishing a finished snapshot, the way deploy tools switch releases (Capistrano's `current -> releases/N`):
 * the staged tree becomes a generation in `<out>.cv-snapshot/`, and a new symbolic link to it is renamed over
 * --out. rename(2) replaces the old link in one step, so --out is present at every instant and names either the old
 * or the new complete snapshot. The generation --out named before is kept (rollback); older generations this tool
 * made are deleted, and nothing else.
 *
 * Steps, and what a kill after each leaves:
 *  1. link `<out>.cv-snapshot/publishing` → the new generation's name: --out unchanged; the next run removes the link.
 *  2. rename the staged tree to that generation: --out unchanged; the next run finishes the publish (steps 3–4).
 *  3. only the first time, when --out is a directory (an earlier snapshot, or empty): rename it into the generations
 *     directory. Until step 4, --out is absent: the one window, closed by the next run, which finishes the publish.
 *  4. rename `publishing` over --out: published.
 *  5. delete older generations (each renamed to `deleting-N` first) and the staging directory: a kill leaves them
 *     to the next publish; --out is already the new snapshot. A generation is deleted only when every file in it is
 *     still what the tool wrote (docs/safety.md#never-deletes-what-it-did-not-write): one with an edited file is kept,
 *     and the publish says which file and how to remove it.
 */
import { existsSync } from 'node:fs';
import { mkdir, open, readlink, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OutputDirError } from '../util/errors.js';
import type { StagingLock } from './lock.js';
import {
  changedFiles,
  DELETING,
  foreignFiles,
  GENERATION,
  generationOfLink,
  generationsIn,
  linkTarget,
  MARKER_FILE,
  markerText,
  outState,
  PENDING_LINK,
  readGenerationsDir,
  sameState,
  type OutInspection,
  type OutputPaths,
} from './output-dir.js';
import { removeTree } from './remove-tree.js';
import { NEW_GENERATIONS_DIR } from './staging.js';

/** One past the highest number used in the generations directory. */
function nextNumber(entries: string[]): number {
  let highest = 0;
  for (const name of entries) {
    const match = GENERATION.exec(name) ?? DELETING.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest + 1;
}

/** Flushes a directory's entries (the renames in it) to disk, where the platform allows. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not every platform can sync a directory; the rename has happened all the same.
  }
}

/** Makes the generations directory, marked, in one rename: it is never there without its mark. */
async function createGenerationsDir(paths: OutputPaths): Promise<string[]> {
  const fresh = path.join(paths.staging, NEW_GENERATIONS_DIR);
  await rm(fresh, { recursive: true, force: true });
  await mkdir(fresh);
  await writeFile(path.join(fresh, MARKER_FILE), markerText(paths));
  await rename(fresh, paths.generations);
  return [MARKER_FILE];
}

async function unlinkIfThere(file: string): Promise<void> {
  await unlink(file).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  });
}

/** A sentence saying that `dir` was kept because of the files `changed` names, and how to remove it. */
function keptEdited(dir: string, changed: { count: number; examples: string[] }): string {
  const more = changed.count > changed.examples.length ? ` and ${changed.count - changed.examples.length} more` : '';
  const which = changed.count === 1 ? 'was' : 'were';
  return (
    `${dir}, an earlier snapshot, was kept: ${changed.examples.join(', ')}${more} ${which} changed since ` +
    `cv-snapshot wrote ${changed.count === 1 ? 'it' : 'them'} (not what its _cv-snapshot/SHA256SUMS says), and ` +
    `cv-snapshot never deletes what it did not write. Keep what you need of it elsewhere, then remove it with ` +
    `rm -r '${dir.replaceAll("'", "'\\''")}'.`
  );
}

/**
 * Deletes the generations not in `keep`, each only when it holds nothing but its snapshot's files, each still as the
 * tool wrote it (anything else stays, with the generation). Failures are left for the next publish: the new
 * snapshot is already in place. Returns a sentence for each generation kept because a file in it was edited.
 */
async function deleteOldGenerations(paths: OutputPaths, keep: Set<string>): Promise<string[]> {
  const entries = (await readGenerationsDir(paths)) ?? [];
  const kept: string[] = [];
  for (const generation of generationsIn(entries)) {
    if (keep.has(generation)) continue;
    const dir = path.join(paths.generations, generation);
    // One that cannot be looked through (too deep for a path to name, say) stays; the others are still deleted.
    const foreign = (() => {
      try {
        return foreignFiles(dir).count;
      } catch {
        return null;
      }
    })();
    if (foreign !== 0) continue;
    const changed = (() => {
      try {
        return changedFiles(dir);
      } catch {
        return null;
      }
    })();
    if (changed === null) continue;
    if (changed.count > 0) {
      kept.push(keptEdited(dir, changed));
      continue;
    }
    const doomed = path.join(paths.generations, generation.replace('snapshot-', 'deleting-'));
    await rename(dir, doomed).catch(() => undefined);
  }
  for (const name of await readGenerationsDir(paths).then((e) => e ?? [])) {
    if (DELETING.test(name)) await removeTree(path.join(paths.generations, name));
  }
  return kept;
}

/**
 * Publishes the staged tree at --out. `before` is what --out was when the crawl started (inspectOut): if it changed
 * since, nothing is published. On failure the tree is put back into staging, for --resume to publish. Returns a
 * sentence for each older generation kept because a file in it was edited since the tool wrote it.
 */
export async function publish(paths: OutputPaths, before: OutInspection, lock: StagingLock): Promise<string[]> {
  await lock.assertHeld(paths.staging);
  const now = await outState(paths);
  if (!sameState(before.state, now)) {
    throw new OutputDirError(
      `${paths.out} changed while the crawl ran, so nothing was published. The new snapshot is kept in ` +
        `${paths.staging}: run the same command with --resume to check --out again and publish it.`,
    );
  }
  const entries = (await readGenerationsDir(paths)) ?? (await createGenerationsDir(paths));
  let number = nextNumber(entries);
  const moved = before.state.kind === 'directory' ? `snapshot-${number++}` : null;
  const generation = `snapshot-${number}`;
  const generationDir = path.join(paths.generations, generation);
  const pending = path.join(paths.generations, PENDING_LINK);

  await unlinkIfThere(pending);
  await symlink(linkTarget(paths, generation), pending);
  try {
    await rename(paths.stagedTree, generationDir);
  } catch (error) {
    await unlinkIfThere(pending);
    throw error;
  }
  try {
    if (moved !== null) await rename(paths.out, path.join(paths.generations, moved));
    try {
      await rename(pending, paths.out);
    } catch (error) {
      if (moved !== null) await rename(path.join(paths.generations, moved), paths.out);
      throw error;
    }
  } catch (error) {
    await unlinkIfThere(pending);
    await rename(generationDir, paths.stagedTree);
    throw error;
  }
  await syncDir(paths.parent);
  const keep = new Set([generation]);
  const previous = moved ?? (before.state.kind === 'link' ? before.state.generation : before.keep);
  if (previous !== null) keep.add(previous);
  return deleteOldGenerations(paths, keep).catch(() => []);
}

/**
 * Finishes a publish that a kill interrupted after the staged tree became a generation (steps 2–3 above), so that
 * --out is back before anything else happens; removes the link of one interrupted before. Runs with the lock held.
 */
export async function recoverInterruptedPublish(paths: OutputPaths): Promise<void> {
  const entries = await readGenerationsDir(paths);
  if (entries === null || !entries.includes(PENDING_LINK)) return;
  const pending = path.join(paths.generations, PENDING_LINK);
  const target = await readlink(pending).catch(() => null);
  const generation = target === null ? null : generationOfLink(paths, target);
  if (generation === null || !existsSync(path.join(paths.generations, generation))) {
    await unlinkIfThere(pending);
    return;
  }
  const state = await outState(paths);
  if (state.kind === 'other') return; // Not ours to replace: inspectOut says so.
  if (state.kind === 'directory') {
    await rename(paths.out, path.join(paths.generations, `snapshot-${nextNumber(entries)}`));
  }
  await rename(pending, paths.out);
  await syncDir(paths.parent);
}
