/**
 * `verify`: offline, a snapshot is checked against itself — every file matches SHA256SUMS and no file is missing or
 * extra, every link in every document resolves to a file of the snapshot, and every document validates against
 * the schemas and cross-document rules.
 *
 * A faithful mirror keeps the source's own faults: what validation found at crawl time is in the report, so those
 * findings (and links to documents the report names as dead or unstorable) are counted, not failed; anything the
 * report does not explain is a problem. A file that no longer matches its checksum was changed after the crawl:
 * that is the problem reported for it, and nothing its content breaks is blamed on the source; nor is what the
 * checks across documents find when a document is missing or cannot be read.
 *
 * The tree is not trusted (it may come from an archive from elsewhere): symbolic links, pipes, sockets and devices
 * in it are problems, never opened or followed; JSON nested too deep is a problem, not a stack overflow; every
 * problem is printable (no terminal escapes, no passwords in URLs). However many problems and findings it holds,
 * memory does not grow with them: they are counted, and listed up to a limit (problems.ts, verify-findings.ts).
 *
 * Files are checked one by one (tree-check.ts); the loop yields now and then, so that a signal stops it.
 */
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { throwIfStopped, VerifyError } from '../util/errors.js';
import type { Finding } from '../validate/finding.js';
import { Layout } from '../format/layout.js';
import { type Manifest } from '../format/manifest.js';
import { SUMS_PATH } from '../store/sums.js';
import { readSnapshotManifest } from '../format/read-manifest.js';
import { readSums } from '../format/read-sums.js';
import { firstLine, NotRegularFileError } from '../format/safe-read.js';
import { walkTree } from '../format/walk-tree.js';
import { FileIndex } from './file-index.js';
import { Problems } from './problems.js';
import { SumsChangedError, SumsCursor } from './sums-cursor.js';
import { TreeCheck } from './tree-check.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { checkCapture } from './capture-check.js';

export interface VerifyResult {
  manifest: Manifest;
  files: number;
  documents: number;
  links: number;
  /** Sentences naming what is wrong, the first 2,000 (`LISTED_PROBLEMS`); empty when the snapshot is sound. */
  problems: string[];
  /** How many problems there are, listed in `problems` or not. */
  problemCount: number;
  /**
   * The validation findings of this run as the crawl's report lists them: at most 1,000 of each rule, sorted by URL,
   * pointer and rule.
   */
  findings: Finding[];
  /** Findings counted but not listed in `findings`. */
  findingsOmitted: number;
  /** Validation errors that the crawl recorded in the report (faults of the source, mirrored faithfully). */
  recordedErrors: number;
}

export interface VerifyOptions {
  /** Stops the check (StoppedError). */
  signal?: AbortSignal | undefined;
  /** The snapshot as the user named it (an archive rather than its temporary extraction), for messages. */
  name?: string;
}

/** Files listed in SHA256SUMS but missing, named one by one; the rest are counted. */
const NAMED_MISSING = 1000;
/** Files checked between two turns of the event loop. */
const FILES_PER_TURN = 64;

export async function verifySnapshot(dir: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  const { signal } = options;
  const name = options.name ?? dir;
  const problems = new Problems();
  // Exit 1 (not a snapshot at all), as verify --help says; 3 is for a snapshot that fails its checks.
  const manifest = readSnapshotManifest(dir, name);
  const layout = new Layout(manifest.source.root);
  const tree = await listTree(dir, signal);
  for (const [file, kind] of [...tree.specials].sort(([a], [b]) => byCodeUnits(a, b))) {
    problems.add(`${file} is ${kind}; a snapshot holds only regular files and directories, so it was not read.`);
  }
  const { files, notRead } = await checkSums(dir, name, tree, problems, signal);
  for (let i = 0; i < files.size; i += 1) {
    if (!files.isListed(i)) problems.add(`${files.name(i)} is not part of the snapshot (not in ${SUMS_PATH}).`);
  }
  const check = new TreeCheck(dir, layout, files, manifest, problems);
  check.notRead(notRead);
  await checkFiles(dir, name, files, check, signal);
  check.finish();
  if (manifest.options.warc === true) await checkCapture(dir, files, layout, manifest, problems, signal);
  const { findings, omitted } = check.findings.listed();
  return {
    manifest,
    files: files.size,
    documents: check.documents,
    links: check.links,
    problems: problems.listed,
    problemCount: problems.count,
    findings,
    findingsOmitted: omitted,
    recordedErrors: check.findings.recordedErrors,
  };
}

/**
 * Checks each file SHA256SUMS lists, in order. When SHA256SUMS lists them in that order (as crawl writes it), their
 * checksums are read from it again as the files are checked (sums-cursor.ts) rather than kept.
 */
async function checkFiles(
  dir: string,
  name: string,
  files: FileIndex,
  check: TreeCheck,
  signal: AbortSignal | undefined,
): Promise<void> {
  let cursor: SumsCursor | undefined;
  try {
    if (files.listedInOrder) {
      cursor = openSumsAgain(dir, name);
      files.forgetSums();
    }
    for (let i = 0; i < files.size; i += 1) {
      if ((i + 1) % FILES_PER_TURN === 0) {
        await nextTurn();
        throwIfStopped(signal);
      }
      if (!files.isListed(i)) continue;
      const file = files.name(i);
      check.file(file, cursor === undefined ? files.sumOf(i)! : cursor.sumOf(file));
    }
  } catch (error) {
    if (!(error instanceof SumsChangedError)) throw error;
    throw new VerifyError(`${name}: ${SUMS_PATH} was changed while verify read it. Run verify again.`);
  } finally {
    cursor?.close();
  }
  throwIfStopped(signal);
}

function openSumsAgain(dir: string, name: string): SumsCursor {
  try {
    return new SumsCursor(dir);
  } catch (error) {
    throw new VerifyError(`${name}: ${SUMS_PATH} cannot be read again (${firstLine(error)}). Run verify again.`);
  }
}

/** The tree's regular files (SHA256SUMS itself left out) and anything else found in it. */
async function listTree(
  dir: string,
  signal: AbortSignal | undefined,
): Promise<{ files: FileIndex; specials: Map<string, string> }> {
  const names: string[] = [];
  const specials = new Map<string, string>();
  await walkTree(
    dir,
    {
      file: (rel) => {
        if (rel !== SUMS_PATH) names.push(rel);
      },
      special: (rel, kind) => specials.set(rel, kind),
    },
    signal,
  );
  return { files: new FileIndex(names.sort(byCodeUnits)), specials };
}

/**
 * Reads SHA256SUMS into the index of the tree's files: its faulty lines and the files it lists that are missing
 * are problems. `notRead`: how many files it lists are missing or not regular files, which no check reads.
 */
async function checkSums(
  dir: string,
  name: string,
  { files, specials }: { files: FileIndex; specials: ReadonlyMap<string, string> },
  problems: Problems,
  signal: AbortSignal | undefined,
): Promise<{ files: FileIndex; notRead: number }> {
  let reading;
  let listedSpecials = 0;
  try {
    const keep = (file: string): boolean => {
      if (!specials.has(file)) return files.isFile(file);
      listedSpecials += 1;
      return true;
    };
    reading = await readSums(dir, keep, { signal, named: NAMED_MISSING, into: files });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new VerifyError(`${name} has no ${SUMS_PATH}; the snapshot is incomplete. Crawl it again.`);
    }
    if (error instanceof NotRegularFileError) {
      const file = path.relative(dir, error.file);
      throw new VerifyError(`${name}: ${file} is ${error.kind}, not the snapshot's checksums; it was not read.`);
    }
    throw new VerifyError(`${name}: ${SUMS_PATH} cannot be read (${firstLine(error)}).`);
  }
  for (const problem of reading.problems) problems.add(problem);
  if (reading.problemCount > reading.problems.length) {
    problems.add(`… and ${reading.problemCount - reading.problems.length} more faulty lines in ${SUMS_PATH}.`);
  }
  for (const file of reading.dropped.first) problems.add(`${file} is listed in ${SUMS_PATH} but missing.`);
  if (reading.dropped.count > reading.dropped.first.length) {
    const more = reading.dropped.count - reading.dropped.first.length;
    problems.add(`… and ${more} more files listed in ${SUMS_PATH} are missing.`);
  }
  return { files: reading.sums, notRead: reading.dropped.count + listedSpecials };
}
