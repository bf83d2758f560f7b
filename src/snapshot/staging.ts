/**
 * The staging directory's life (DESIGN.md §7): a snapshot is built in a staging directory beside `--out` and renamed
 * into place only when complete, so a failed or interrupted run leaves the previous snapshot exactly as it was; an
 * interrupted run's staging directory is resumed from its journal.
 *
 * Publishing takes two renames (`out` → `out.previous`, staged tree → `out`); a crash between them leaves
 * `out.previous`, which the next run renames back before doing anything else.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OutputDirError, UsageError } from '../errors.js';
import { Journal, JOURNAL_FILE } from './journal.js';
import { MANIFEST_PATH } from './manifest.js';
import type { RunState } from './run-state.js';

/** The settings a staging directory was started with; a resumed crawl must use the same. */
const RUN_FILE = 'run.json';

export interface OutputPaths {
  out: string;
  /** Work directory of the run: the tree being built lives in `tree/` inside it. */
  staging: string;
  stagedTree: string;
  journal: string;
  previous: string;
}

export function outputPaths(out: string): OutputPaths {
  const resolved = path.resolve(out);
  const staging = `${resolved}.staging`;
  return {
    out: resolved,
    staging,
    stagedTree: path.join(staging, 'tree'),
    journal: path.join(staging, JOURNAL_FILE),
    previous: `${resolved}.previous`,
  };
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
  if (!existsSync(path.join(paths.out, MANIFEST_PATH))) {
    throw new OutputDirError(
      `${paths.out} is not empty and holds no cv-snapshot snapshot (no ${MANIFEST_PATH}), so it will not be ` +
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

/**
 * Prepares the staging directory: a new one (never over a leftover: that asks for --resume or --fresh), or, with
 * `resume`, the one an earlier run left, checked to have been started with the same `settings`.
 */
export async function prepareStaging(
  paths: OutputPaths,
  mode: { fresh: boolean; resume: boolean },
  settings: object,
): Promise<void> {
  if (mode.fresh && mode.resume) throw new UsageError('--fresh and --resume contradict each other; give one.');
  if (mode.fresh) await rm(paths.staging, { recursive: true, force: true });
  if (mode.resume) {
    let earlier: string;
    try {
      earlier = await readFile(path.join(paths.staging, RUN_FILE), 'utf8');
    } catch {
      throw new OutputDirError(`There is no interrupted crawl to resume at ${paths.staging}; run without --resume.`);
    }
    if (earlier !== JSON.stringify(settings)) {
      throw new OutputDirError(
        `The crawl in ${paths.staging} was started with other settings (${earlier}); ` +
          'resume it with the same root URL, --links, --base-url and --collection-index, or start over with --fresh.',
      );
    }
    await assertNoSymlinks(paths.stagedTree);
    return;
  }
  try {
    await mkdir(paths.staging);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new OutputDirError(
      `An earlier crawl into ${paths.out} did not finish; its work is in ${paths.staging}. ` +
        'Run again with --resume to continue it, or with --fresh to discard it and start over.',
    );
  }
  await writeFile(path.join(paths.staging, RUN_FILE), JSON.stringify(settings));
}

async function hashFile(file: string): Promise<string | null> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  } catch {
    return null;
  }
  return hash.digest('hex');
}

/**
 * Replays the journal of an interrupted run into `state`. A document whose file does not hash as journaled was cut
 * short or changed: its entry is skipped, so the document is fetched again.
 */
export async function replayJournal(paths: OutputPaths, state: RunState): Promise<void> {
  for await (const entry of Journal.read(paths.journal)) {
    if (entry.t === 'doc' && entry.file !== null) {
      const actual = await hashFile(path.join(paths.stagedTree, ...entry.file.path.split('/')));
      if (actual !== entry.file.sha256) continue;
    }
    state.apply(entry);
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
