/**
 * The staging directory's life: a snapshot is built in `<out>.staging` beside --out and published only when
 * complete (publish.ts), so a failed or interrupted run leaves --out exactly as it was; an interrupted run's staging
 * directory is resumed from its journal. The directory holds the run's lock (lock.ts): one crawl at a time.
 */
import { existsSync, readdirSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rmdir, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../util/clock.js';
import { OutputDirError } from '../util/errors.js';
import { DERIVE_JOURNAL_FILE, JOURNAL_FILE } from './journal.js';
import { LOCK_FILE, StagingLock } from './lock.js';
import { removeTree } from './remove-tree.js';
import { FILE_LIST, RUN_FILE, TREE_DIR, type OutputPaths } from './output-dir.js';

/** Where a new generations directory is prepared, to appear beside --out in one rename (publish.ts). */
export const NEW_GENERATIONS_DIR = 'generations.new';
/** A symbolic link made and removed at start-up: the file system must hold one for --out. */
const LINK_CHECK = 'link-check';

/** What this tool writes in a staging directory; anything else there means the directory is not ours. */
function isOurs(name: string): boolean {
  return (
    [
      RUN_FILE,
      JOURNAL_FILE,
      DERIVE_JOURNAL_FILE,
      TREE_DIR,
      FILE_LIST,
      LOCK_FILE,
      NEW_GENERATIONS_DIR,
      LINK_CHECK,
    ].includes(name) || /^lock\.json\.(?:[0-9a-f]{32}\.tmp|stale-[0-9a-f]{32})$/.test(name)
  );
}

/** The settings a staging directory was started with; a resumed crawl must use the same. */
export interface RunSettings {
  root: string;
  links: string;
  baseUrl: string | null;
  collectionIndex: string;
  /**
   * Whether the crawl records a capture (`--warc`): a resumed crawl must, or must not, as the interrupted one did, or
   * the capture would lack what the first run fetched. Absent when not (so settings kept before it existed read alike).
   */
  warc?: true;
  /**
   * The names for people the crawl was started with (`--names`): not a setting a resume must repeat, but one it
   * takes when not given again, since they shape only the catalogue, built at the end.
   */
  names?: unknown;
}

const SETTING_NAMES: Record<Exclude<keyof RunSettings, 'names'>, string> = {
  root: 'the root URL',
  links: '--links',
  baseUrl: '--base-url',
  collectionIndex: '--collection-index',
  warc: '--warc',
};

export interface OpenedStaging {
  lock: StagingLock;
  /** The directory holds a tree from an earlier run (work that only --resume or --fresh may take). */
  leftover: boolean;
}

/**
 * Makes or finds the staging directory and takes its lock. Refuses a staging path that is a symbolic link, a file,
 * or a directory holding anything this tool does not write there: it is someone else's.
 */
export async function openStaging(paths: OutputPaths, clock: Clock): Promise<OpenedStaging> {
  await mkdir(paths.staging).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  const stats = await lstat(paths.staging);
  if (!stats.isDirectory()) {
    throw new OutputDirError(
      `${paths.staging} is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}, which cv-snapshot ` +
        `did not make; it builds each snapshot of ${paths.out} there. Move it away, or choose another --out.`,
    );
  }
  const foreign = (await readdir(paths.staging)).filter((name) => !isOurs(name));
  if (foreign.length > 0) {
    throw new OutputDirError(
      `${paths.staging} holds files cv-snapshot does not write (${foreign.slice(0, 3).join(', ')}), so it is not a ` +
        `staging directory of this tool and will not be used or removed. Move it away, or choose another --out.`,
    );
  }
  const lock = await StagingLock.acquire(paths.staging, paths.out, clock);
  return { lock, leftover: existsSync(paths.stagedTree) };
}

/** Checks that a symbolic link can be made beside --out: publishing makes one. */
export async function assertLinksWork(paths: OutputPaths): Promise<void> {
  const probe = path.join(paths.staging, LINK_CHECK);
  await unlink(probe).catch(() => undefined);
  try {
    await symlink(TREE_DIR, probe);
  } catch (error) {
    throw new OutputDirError(
      `The file system of ${paths.parent} cannot hold a symbolic link (${(error as NodeJS.ErrnoException).code}), ` +
        'and --out is published as one. Choose an --out on another file system.',
    );
  }
  await unlink(probe);
}

/** Removes what a run wrote in the staging directory, except its lock. */
async function clearStaging(paths: OutputPaths): Promise<void> {
  for (const name of await readdir(paths.staging)) {
    if (name !== LOCK_FILE && isOurs(name)) await removeTree(path.join(paths.staging, name));
  }
}

/** Removes the staging directory, if it is still this run's: its contents, then its lock, then the directory. */
export async function removeStaging(paths: OutputPaths, lock: StagingLock): Promise<void> {
  try {
    await lock.assertHeld(paths.staging);
  } catch {
    return;
  }
  await clearStaging(paths);
  await lock.release();
  // Another crawl may have taken the empty directory meanwhile: then it is not empty, and stays.
  await rmdir(paths.staging).catch(() => undefined);
}

function describe(value: string | null | true | undefined): string {
  if (value === true) return 'given';
  return value === null || value === undefined ? '(none)' : value;
}

/** The settings of the crawl kept in staging, and the sentences naming those that differ from `settings`. */
async function differences(
  paths: OutputPaths,
  settings: RunSettings,
): Promise<{ differ: string[]; earlier: Partial<Record<keyof RunSettings, unknown>> }> {
  let earlier: Partial<Record<keyof RunSettings, unknown>>;
  try {
    earlier = JSON.parse(await readFile(path.join(paths.staging, RUN_FILE), 'utf8')) as typeof earlier;
  } catch {
    throw new OutputDirError(
      `The crawl kept in ${paths.staging} cannot be resumed: its ${RUN_FILE} is missing or damaged. ` +
        'Start over with --fresh.',
    );
  }
  const differ: string[] = [];
  for (const key of Object.keys(SETTING_NAMES) as Array<keyof typeof SETTING_NAMES>) {
    const was = earlier[key];
    if (was === settings[key]) continue;
    const before =
      typeof was === 'string' || was === null || was === true ? describe(was) : (JSON.stringify(was) ?? '(none)');
    differ.push(`${SETTING_NAMES[key]} was ${before} and is now ${describe(settings[key])}`);
  }
  return { differ, earlier };
}

/**
 * Readies the staging directory, with its lock held: a new crawl (never over a leftover tree: that asks for
 * --resume or --fresh), a fresh start (the leftover removed), or, with `resume`, the leftover checked to have been
 * started with the same `settings`; then the names it was started with (unchecked, as run.json holds them), which
 * names given to the resume replace in run.json.
 */
export async function prepareStaging(
  paths: OutputPaths,
  opened: OpenedStaging,
  mode: { fresh: boolean; resume: boolean },
  settings: RunSettings,
): Promise<{ startedWithNames?: unknown }> {
  if (mode.resume) {
    if (!opened.leftover) {
      throw new OutputDirError(`There is no interrupted crawl to resume at ${paths.staging}; run without --resume.`);
    }
    const { differ, earlier } = await differences(paths, settings);
    if (differ.length > 0) {
      throw new OutputDirError(
        `The crawl kept in ${paths.staging} was started with other settings: ${differ.join('; ')}. Resume it with ` +
          'the settings it was started with, or start over with these settings with --fresh (its work is discarded).',
      );
    }
    assertPlainTree(paths.stagedTree);
    // Names given to this resume replace the ones the crawl was started with, for a later resume as well.
    if (settings.names !== undefined) await writeFile(path.join(paths.staging, RUN_FILE), JSON.stringify(settings));
    return { startedWithNames: earlier.names };
  }
  if (opened.leftover && !mode.fresh) {
    throw new OutputDirError(
      `An earlier crawl into ${paths.out} did not finish; its work is in ${paths.staging}. ` +
        'Run again with --resume to continue it, or with --fresh to discard it and start over.',
    );
  }
  await clearStaging(paths);
  await writeFile(path.join(paths.staging, RUN_FILE), JSON.stringify(settings));
  return {};
}

/**
 * Refuses a staging tree that holds anything but directories and regular files: a resumed crawl writes into it
 * and reads its files back, and a planted symbolic link would lead writes outside, a named pipe would block.
 */
function assertPlainTree(dir: string): void {
  if (!existsSync(dir)) return;
  // Synchronous: a tree holds hundreds of thousands of entries, and nothing else runs while it is checked.
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) assertPlainTree(file);
    else if (!entry.isFile()) {
      throw new OutputDirError(
        `${file} is ${entry.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'} inside the staging ` +
          'directory; it will not be written through or read. Remove it, or start over with --fresh.',
      );
    }
  }
}
