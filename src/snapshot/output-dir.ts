/**
 * What is at --out and beside it, and whether this tool may replace it. Checked before anything is fetched, so that
 * a crawl never runs for an hour to find it cannot publish.
 *
 * `--out` is a symbolic link, made by this tool, to one generation in `<out>.cv-snapshot/` (a directory the tool
 * marks with `cv-snapshot.json`). The tool replaces --out only when it is absent, is such a link, is an empty
 * directory, or is a directory holding an earlier snapshot and nothing else (every file listed in its SHA256SUMS).
 */
import { existsSync } from 'node:fs';
import { lstat, readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { OutputDirError, UsageError } from '../errors.js';
import { JOURNAL_FILE } from './journal.js';
import { LOCK_FILE } from './lock.js';
import { parseSums, SUMS_PATH } from './manifest.js';

export const GENERATIONS_SUFFIX = '.cv-snapshot';
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

export interface OutputPaths {
  out: string;
  /** The directory holding --out, its staging directory and its generations. */
  parent: string;
  name: string;
  /** Work directory of the run: the tree being built lives in `tree/` inside it. */
  staging: string;
  stagedTree: string;
  journal: string;
  /** Where published snapshots live (`<out>.cv-snapshot`); --out links to one of them. */
  generations: string;
}

export function outputPaths(out: string): OutputPaths {
  const resolved = path.resolve(out);
  const parent = path.dirname(resolved);
  const name = path.basename(resolved);
  if (parent === resolved || name === '') {
    throw new UsageError(`--out ${out} is the root of the file system; give a directory of its own, such as ./cv-mirror.`);
  }
  const staging = `${resolved}.staging`;
  return {
    out: resolved,
    parent,
    name,
    staging,
    stagedTree: path.join(staging, TREE_DIR),
    journal: path.join(staging, JOURNAL_FILE),
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
        `Made by cv-snapshot. ${paths.name} is a symbolic link to the current snapshot here; the one before it is kept ` +
        'for rollback, older snapshot-N directories are deleted when a new snapshot is published. Anything else here ' +
        'is left alone.',
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
  return `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;
}

/**
 * Files under `dir` that are not the snapshot's: not listed in its SHA256SUMS (and not SHA256SUMS itself), or not
 * regular files. Returns how many, and a few examples, top-most first (`.git/` rather than every file in it).
 */
export async function foreignFiles(dir: string): Promise<{ count: number; examples: string[] }> {
  let listed: Map<string, string>;
  try {
    listed = parseSums(await readFile(path.join(dir, ...SUMS_PATH.split('/')), 'utf8'));
  } catch {
    listed = new Map();
  }
  listed.set(SUMS_PATH, '');
  /** Directories that hold a listed file: every other directory is foreign as a whole. */
  const listedDirs = new Set<string>(['']);
  for (const file of listed.keys()) {
    for (let cut = file.lastIndexOf('/'); cut > 0; cut = file.lastIndexOf('/', cut - 1)) {
      const parent = file.slice(0, cut);
      if (listedDirs.has(parent)) break;
      listedDirs.add(parent);
    }
  }
  let found = 0;
  const examples: string[] = [];
  const hasChildren = new Set<string>();
  const foreignDirs: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const parent = path.relative(dir, entry.parentPath).split(path.sep).join('/');
    const rel = parent === '' ? entry.name : `${parent}/${entry.name}`;
    hasChildren.add(parent);
    const topMost = listedDirs.has(parent);
    if (entry.isDirectory()) {
      if (!listedDirs.has(rel)) {
        foreignDirs.push(rel);
        if (topMost) examples.push(`${rel}/`);
      }
      continue;
    }
    if (entry.isFile() && listed.has(rel)) continue;
    found += 1;
    if (topMost) examples.push(rel);
  }
  // An empty directory holds nothing, but it is not the snapshot's either.
  found += foreignDirs.filter((rel) => !hasChildren.has(rel)).length;
  examples.sort();
  return { count: found, examples: examples.slice(0, 3) };
}

async function assertOnlySnapshotFiles(dir: string, what: string, howToProceed: string): Promise<void> {
  const foreign = await foreignFiles(dir);
  if (foreign.count === 0) return;
  throw new OutputDirError(
    `${what} holds ${count(foreign.count, 'file')} that ${foreign.count === 1 ? 'is' : 'are'} not part of a ` +
      `snapshot (not listed in its ${SUMS_PATH}), such as ${foreign.examples.join(', ')}. cv-snapshot never deletes ` +
      `what it did not write, so nothing was fetched. ${howToProceed}`,
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
      `${paths.generations} exists but was not made by cv-snapshot for ${paths.out} (its ${MARKER_FILE} is missing or ` +
        `names another directory); ${moveAway}`,
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

/** Whether --out's symbolic link is one this tool made: it names a generation in <out>.cv-snapshot. */
export function generationOfLink(paths: OutputPaths, target: string): string | null {
  const prefix = `${paths.name}${GENERATIONS_SUFFIX}/`;
  if (!target.startsWith(prefix)) return null;
  const generation = target.slice(prefix.length);
  return GENERATION.test(generation) ? generation : null;
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
          ? 'Give the directory it points to as --out (cv-snapshot then keeps its snapshots beside it), or remove the link.'
          : 'Choose another --out.'),
    );
  }
  if (state.kind === 'directory') {
    const [own, parent] = await Promise.all([stat(paths.out), stat(paths.parent)]);
    if (own.dev !== parent.dev) {
      throw new OutputDirError(
        `${paths.out} is a mount point (another file system than its parent), so it cannot be replaced by a ` +
          `symbolic link to the new snapshot. Give a directory inside it as --out, such as ${path.join(paths.out, 'cv-mirror')}.`,
      );
    }
    const cwd = path.relative(await realpath(paths.out), process.cwd());
    if (!cwd.startsWith('..') && !path.isAbsolute(cwd)) {
      throw new UsageError(
        `--out ${paths.out} is the current directory or holds it; cv-snapshot replaces --out by a symbolic link to ` +
          `each new snapshot, so give a directory of its own, such as ${path.join(paths.out, 'cv-mirror')}.`,
      );
    }
    await assertOnlySnapshotFiles(paths.out, paths.out, proceed);
  }
  // Kept after publishing: the generation --out names now, or, when the link is gone, the newest one.
  const keep = state.kind === 'link' ? state.generation : state.kind === 'absent' ? (generations.at(-1) ?? null) : null;
  for (const generation of generations) {
    const dir = path.join(paths.generations, generation);
    if (generation !== keep) {
      await assertOnlySnapshotFiles(dir, `${dir}, an earlier snapshot that publishing deletes,`, proceed);
    } else if (state.kind === 'link') {
      await assertOnlySnapshotFiles(dir, `${paths.out} (${dir})`, proceed);
    }
  }
  return { state, generations, keep };
}
