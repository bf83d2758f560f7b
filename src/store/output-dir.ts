/**
 * What is at --out and beside it, and whether this tool may replace it. Checked before anything is fetched, so that
 * a crawl never runs for an hour to find it cannot publish.
 *
 * `--out` is a symbolic link, made by this tool, to one generation in `<out>.cv-snapshot/` (a directory the tool
 * marks with `cv-snapshot.json`). The tool replaces --out only when it is absent, is such a link, is an empty
 * directory, or is a directory holding an earlier snapshot and nothing else (every file listed in its SHA256SUMS).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { lstat, readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { OutputDirError, UsageError } from '../util/errors.js';
import { JOURNAL_FILE } from './journal.js';
import { LOCK_FILE } from './lock.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { SUMS_PATH, sumsEntries } from './sums.js';
import { noun } from '../util/plural.js';
import { fileSha256 } from '../util/file-sha256.js';

const GENERATIONS_SUFFIX = '.cv-snapshot';
/** The mark of a generations directory: a directory without it, or marked for another --out, is not ours. */
export const MARKER_FILE = 'cv-snapshot.json';
const MARKER_FORMAT = 'cv-snapshot-generations';
export const GENERATION = /^snapshot-([1-9]\d{0,14})$/;
/** A symbolic link to the generation being published: present only between the two steps of a publish. */
export const PENDING_LINK = 'publishing';
/** A generation being deleted: renamed first, so a half-deleted tree is never taken for a snapshot. */
export const DELETING = /^deleting-([1-9]\d{0,14})$/;

/** The settings a staging directory was started with; a resumed crawl must use the same. */
export const RUN_FILE = 'run.json';
export const TREE_DIR = 'tree';
/** The list of files written into the tree, for SHA256SUMS (store/writer.ts). */
export const FILE_LIST = 'files.list';

export interface OutputPaths {
  out: string;
  /** The directory holding --out, its staging directory and its generations. */
  parent: string;
  name: string;
  /** Work directory of the run: the tree being built lives in `tree/` inside it. */
  staging: string;
  stagedTree: string;
  journal: string;
  /** The list of the files written into the staged tree. */
  fileList: string;
  /** Where published snapshots live (`<out>.cv-snapshot`); --out links to one of them. */
  generations: string;
}

export function outputPaths(out: string): OutputPaths {
  const resolved = path.resolve(out);
  const parent = path.dirname(resolved);
  const name = path.basename(resolved);
  if (parent === resolved || name === '') {
    throw new UsageError(
      `--out ${out} is the root of the file system; give a directory of its own, such as ./cv-mirror.`,
    );
  }
  const staging = `${resolved}.staging`;
  return {
    out: resolved,
    parent,
    name,
    staging,
    stagedTree: path.join(staging, TREE_DIR),
    journal: path.join(staging, JOURNAL_FILE),
    fileList: path.join(staging, FILE_LIST),
    generations: `${resolved}${GENERATIONS_SUFFIX}`,
  };
}

/** The text of --out's symbolic link to a generation: relative, so the parent directory can be moved or copied. */
export function linkTarget(paths: OutputPaths, generation: string): string {
  return `${paths.name}${GENERATIONS_SUFFIX}/${generation}`;
}

export function markerText(paths: OutputPaths): string {
  return `${JSON.stringify(
    {
      format: MARKER_FORMAT,
      out: paths.name,
      note:
        `Made by cv-snapshot. ${paths.name} is a symbolic link to the current snapshot here; the one before it is ` +
        'kept for rollback, older snapshot-N directories are deleted when a new snapshot is published. Anything ' +
        'else here is left alone.',
    },
    null,
    2,
  )}\n`;
}

export type OutState =
  | { kind: 'absent' }
  /** The tool's link; `generation` is the one it names (which may have been removed by hand). */
  | { kind: 'link'; generation: string }
  /** An empty directory or an earlier snapshot, to be moved into the generations directory when publishing. */
  | { kind: 'directory'; dev: number; ino: number };

export interface OutInspection {
  state: OutState;
  /** Generations now in the generations directory (none when it does not exist yet). */
  generations: string[];
  /** The generation kept for rollback besides the new one (when --out is a link): every other one is deleted. */
  keep: string | null;
}

function count(n: number, what: string): string {
  return `${n.toLocaleString('en-US')} ${noun(n, what)}`;
}

/** The paths SHA256SUMS lists, sorted; none when it cannot be read. */
function listedPaths(dir: string): string[] {
  let text: string;
  try {
    text = readFileSync(path.join(dir, ...SUMS_PATH.split('/')), 'utf8');
  } catch {
    return [];
  }
  const paths: string[] = [];
  let sorted = true;
  for (const { file } of sumsEntries(text)) {
    if (paths.length > 0 && byCodeUnits(paths.at(-1)!, file) > 0) sorted = false;
    paths.push(file);
  }
  return sorted ? paths : paths.sort(byCodeUnits);
}

/** Files (anything but directories) below `dir`, or 1 for a tree of empty directories: it is there all the same. */
function countEntries(dir: string): number {
  let found = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    found += entry.isDirectory() ? countEntries(path.join(dir, entry.name)) : 1;
  }
  return Math.max(found, 1);
}

/**
 * Files under `dir` that are not the snapshot's: not listed in its SHA256SUMS (and not SHA256SUMS itself), or not
 * regular files. Returns how many, and a few examples, top-most first (`.git/` rather than every file in it).
 *
 * The tree is walked in the order SHA256SUMS is sorted in and merged with it, so that nothing grows with the
 * snapshot but the list itself; synchronous calls, because a snapshot holds hundreds of thousands of small files.
 */
export function foreignFiles(dir: string): { count: number; examples: string[] } {
  const listed = listedPaths(dir);
  let next = 0;
  /** Moves past the listed paths that sort before `key`. */
  const skipTo = (key: string) => {
    while (next < listed.length && byCodeUnits(listed[next]!, key) < 0) next += 1;
  };
  let count = 0;
  const examples: string[] = [];
  const foreign = (rel: string, entries: number) => {
    count += entries;
    if (examples.length < 3) examples.push(rel);
  };
  const walk = (abs: string, rel: string): void => {
    // A directory sorts as its name and a slash: that is where its files come in the sorted list.
    const entries = readdirSync(abs, { withFileTypes: true })
      .map((entry) => ({ entry, key: entry.isDirectory() ? `${entry.name}/` : entry.name }))
      .sort((a, b) => byCodeUnits(a.key, b.key));
    for (const { entry, key } of entries) {
      const child = `${rel}${key}`;
      skipTo(child);
      if (entry.isDirectory()) {
        const holdsListed = listed[next]?.startsWith(child) === true || SUMS_PATH.startsWith(child);
        if (holdsListed) walk(path.join(abs, entry.name), child);
        else foreign(child, countEntries(path.join(abs, entry.name)));
      } else if (entry.isFile() && (listed[next] === child || child === SUMS_PATH)) {
        continue;
      } else {
        foreign(child, 1);
      }
    }
  };
  walk(dir, '');
  return { count, examples };
}

/**
 * Files under `dir` that its SHA256SUMS lists and that no longer hold what it says the tool wrote there: edited by
 * hand since (a hot fix on a served mirror), or replaced by a link. A listed file that is gone is not counted:
 * deleting the generation loses nothing of it. Returns how many, and a few examples; everything, when SHA256SUMS
 * cannot be read (then nothing says what the tool wrote).
 */
export function changedFiles(dir: string): { count: number; examples: string[] } {
  let text: string;
  try {
    text = readFileSync(path.join(dir, ...SUMS_PATH.split('/')), 'utf8');
  } catch {
    return { count: 1, examples: [SUMS_PATH] };
  }
  const buffer = Buffer.allocUnsafe(1 << 16);
  let count = 0;
  const examples: string[] = [];
  for (const { file, sha256 } of sumsEntries(text)) {
    let actual: string | null;
    try {
      actual = fileSha256(path.join(dir, ...file.split('/')), buffer);
    } catch (error) {
      actual = isCode(error, 'ENOENT') ? sha256 : null;
    }
    if (actual !== sha256) {
      count += 1;
      if (examples.length < 3) examples.push(file);
    }
  }
  return { count, examples };
}

function assertOnlySnapshotFiles(dir: string, what: string, howToProceed: string): void {
  let foreign: { count: number; examples: string[] };
  try {
    foreign = foreignFiles(dir);
  } catch (error) {
    // A tree deeper than a path can name (an older release could publish one) cannot be looked through: publishing
    // leaves it where it is (deleteOldGenerations), so nothing of it is at risk, and the crawl goes on.
    if (isCode(error, 'ENAMETOOLONG')) return;
    throw error;
  }
  if (foreign.count === 0) return;
  throw new OutputDirError(
    `${what} holds ${count(foreign.count, 'file')} that ${foreign.count === 1 ? 'is' : 'are'} not part of a ` +
      `snapshot (not listed in its ${SUMS_PATH}), such as ${foreign.examples.join(', ')}. cv-snapshot never deletes ` +
      `what it did not write, so nothing was done. ${howToProceed}`,
  );
}

function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException).code === code;
}

/** The generations directory's entries, or null when it does not exist; throws when it is not this tool's. */
export async function readGenerationsDir(paths: OutputPaths): Promise<string[] | null> {
  const stats = await lstat(paths.generations).catch((error: unknown) => {
    if (isCode(error, 'ENOENT')) return null;
    throw error;
  });
  if (stats === null) return null;
  const moveAway = `cv-snapshot keeps the snapshots of ${paths.out} there, so move it away or choose another --out.`;
  if (!stats.isDirectory()) {
    throw new OutputDirError(`${paths.generations} exists and is not a directory cv-snapshot made; ${moveAway}`);
  }
  type Marker = { format?: unknown; out?: unknown } | null;
  let marker: Marker;
  try {
    marker = JSON.parse(await readFile(path.join(paths.generations, MARKER_FILE), 'utf8')) as Marker;
  } catch {
    marker = null;
  }
  if (marker?.format !== MARKER_FORMAT || marker.out !== paths.name) {
    throw new OutputDirError(
      `${paths.generations} exists but was not made by cv-snapshot for ${paths.out} (its ${MARKER_FILE} is missing ` +
        `or names another directory); ${moveAway}`,
    );
  }
  return readdir(paths.generations);
}

/** Generation names, oldest first. */
export function generationsIn(entries: string[]): string[] {
  return entries
    .filter((name) => GENERATION.test(name))
    .sort((a, b) => Number(GENERATION.exec(a)![1]) - Number(GENERATION.exec(b)![1]));
}

/**
 * The generation --out's symbolic link names, when it names one in <out>.cv-snapshot (the tool's own link, or one
 * made by hand to roll back, relative or absolute); null for a link elsewhere, which is not the tool's to replace.
 */
export function generationOfLink(paths: OutputPaths, target: string): string | null {
  const resolved = path.resolve(paths.parent, target);
  const generation = path.basename(resolved);
  return path.dirname(resolved) === paths.generations && GENERATION.test(generation) ? generation : null;
}

/** --out's kind now, without looking inside: to tell whether it changed while a crawl ran. */
export async function outState(paths: OutputPaths): Promise<OutState | { kind: 'other'; what: string }> {
  let stats;
  try {
    stats = await lstat(paths.out);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return { kind: 'absent' };
    throw error;
  }
  if (stats.isSymbolicLink()) {
    const target = await readlink(paths.out);
    const generation = generationOfLink(paths, target);
    return generation === null ? { kind: 'other', what: `a symbolic link to ${target}` } : { kind: 'link', generation };
  }
  if (stats.isDirectory()) return { kind: 'directory', dev: stats.dev, ino: stats.ino };
  return { kind: 'other', what: 'a file, not a directory' };
}

export function sameState(a: OutState, b: OutState | { kind: 'other' }): boolean {
  if (a.kind === 'absent' || b.kind === 'absent') return a.kind === b.kind;
  if (a.kind === 'link') return b.kind === 'link' && a.generation === b.generation;
  if (a.kind === 'directory') return b.kind === 'directory' && a.dev === b.dev && a.ino === b.ino;
  return false;
}

/**
 * Refuses an --out inside a place this tool owns or inside a snapshot: its files would be taken for foreign files
 * there, or deleted with a generation.
 */
export async function assertOutsideToolDirs(paths: OutputPaths): Promise<void> {
  let dir = await realpath(paths.parent);
  for (;;) {
    const name = path.basename(dir);
    const inside = (what: string) =>
      new OutputDirError(`--out ${paths.out} is inside ${what}; choose a directory outside it.`);
    if (existsSync(path.join(dir, ...SUMS_PATH.split('/')))) throw inside(`the snapshot ${dir}`);
    if (name.endsWith(GENERATIONS_SUFFIX) && existsSync(path.join(dir, MARKER_FILE))) {
      throw inside(`${dir}, where cv-snapshot keeps published snapshots`);
    }
    if (name.endsWith('.staging') && (existsSync(path.join(dir, RUN_FILE)) || existsSync(path.join(dir, LOCK_FILE)))) {
      throw inside(`${dir}, the staging directory of another crawl`);
    }
    const up = path.dirname(dir);
    if (up === dir) return;
    dir = up;
  }
}

/**
 * Checks, before anything is fetched, that --out can be replaced without losing anything: what it is, that nothing
 * foreign is in it or in the generations a publish would delete, and that it can be moved.
 */
export async function inspectOut(paths: OutputPaths): Promise<OutInspection> {
  const entries = await readGenerationsDir(paths);
  const generations = generationsIn(entries ?? []);
  const state = await outState(paths);
  const proceed =
    'Move those files elsewhere (or the whole directory, and publish into a new one), then run the same command again.';
  if (state.kind === 'other') {
    throw new OutputDirError(
      `${paths.out} is ${state.what}, which cv-snapshot did not make, so it will not be replaced. ` +
        (state.what.startsWith('a symbolic link')
          ? 'Give the directory it points to as --out (cv-snapshot then keeps its snapshots beside it), or remove ' +
            'the link.'
          : 'Choose another --out.'),
    );
  }
  if (state.kind === 'directory') {
    const [own, parent] = await Promise.all([stat(paths.out), stat(paths.parent)]);
    if (own.dev !== parent.dev) {
      throw new OutputDirError(
        `${paths.out} is a mount point (another file system than its parent), so it cannot be replaced by a ` +
          'symbolic link to the new snapshot. Give a directory inside it as --out, such as ' +
          `${path.join(paths.out, 'cv-mirror')}.`,
      );
    }
    const cwd = path.relative(await realpath(paths.out), process.cwd());
    if (!cwd.startsWith('..') && !path.isAbsolute(cwd)) {
      throw new UsageError(
        `--out ${paths.out} is the current directory or holds it; cv-snapshot replaces --out by a symbolic link to ` +
          `each new snapshot, so give a directory of its own, such as ${path.join(paths.out, 'cv-mirror')}.`,
      );
    }
    assertOnlySnapshotFiles(paths.out, paths.out, proceed);
  }
  // Kept after publishing: the generation --out names now, or, when the link is gone, the newest one.
  const keep = state.kind === 'link' ? state.generation : state.kind === 'absent' ? (generations.at(-1) ?? null) : null;
  for (const generation of generations) {
    const dir = path.join(paths.generations, generation);
    if (generation !== keep) {
      assertOnlySnapshotFiles(dir, `${dir}, an earlier snapshot that publishing deletes,`, proceed);
    } else if (state.kind === 'link') {
      assertOnlySnapshotFiles(dir, `${paths.out} (${dir})`, proceed);
    }
  }
  return { state, generations, keep };
}
