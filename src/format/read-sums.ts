/**
 * SHA256SUMS of a snapshot that may not be what crawl wrote, read a chunk at a time and strictly (safe-read.ts).
 */
import { closeSync, lstatSync, readSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { throwIfStopped } from '../util/errors.js';
import { SUMS_PATH, sumsLine } from '../store/sums.js';
import { kindOf, NotRegularFileError, openRegularFile } from './safe-read.js';

/** Why a path listed in SHA256SUMS could not be a file inside the snapshot, or null when it could. */
function unsafeListedPath(file: string): string | null {
  if (file.startsWith('/') || /^[A-Za-z]:/.test(file)) return 'is an absolute path';
  if (file.includes('\\')) return 'contains a backslash';
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(file)) return 'contains a control character';
  const segments = file.split('/');
  if (segments.includes('..')) return 'climbs out of the snapshot with ".."';
  if (segments.some((s) => s === '' || s === '.')) return 'has an empty or "." segment';
  if (file === SUMS_PATH) return 'is SHA256SUMS itself';
  return null;
}

/** Where readSums keeps the checksums of the paths `keep` accepted: a Map, or something more compact (verify). */
export interface SumsStore {
  has(file: string): boolean;
  set(file: string, sha256: string): unknown;
}

export interface SumsReading<S extends SumsStore = Map<string, string>> {
  /** Path → SHA-256 of every listed path that `keep` accepted. */
  sums: S;
  /** Listed paths that `keep` refused (for verify and pack: not in the tree), the first few by name. */
  dropped: { count: number; first: string[] };
  /** What is wrong with the file itself: malformed lines, unsafe or repeated paths (at most MAX_PROBLEMS). */
  problems: string[];
  /** All such problems, including those not listed. */
  problemCount: number;
}

/** A line longer than this is not a checksum line (a path of the layout is at most a few hundred bytes). */
const MAX_LINE_BYTES = 16 << 10;
const MAX_PROBLEMS = 20;
const FIRST_DROPPED = 5;
const CHUNK_BYTES = 1 << 20;
const tooLong = (n: number): string =>
  `${SUMS_PATH} line ${n} is longer than ${MAX_LINE_BYTES} bytes; it is not a checksum line.`;

/**
 * Reads `<dir>/_cv-snapshot/SHA256SUMS` a chunk at a time, strictly: each line is `<sha256>  <path>`, the path
 * relative, inside the snapshot and listed once. Memory holds only the listed paths that `keep` accepts, so a
 * SHA256SUMS far larger than the tree it describes costs no more than the tree; `into` keeps them (a new Map when
 * not given). Throws what reading the file throws (ENOENT, NotRegularFileError).
 */
export async function readSums(
  dir: string,
  keep: (file: string) => boolean,
  options?: { signal?: AbortSignal | undefined; named?: number },
): Promise<SumsReading>;
export async function readSums<S extends SumsStore>(
  dir: string,
  keep: (file: string) => boolean,
  options: { signal?: AbortSignal | undefined; named?: number; into: S },
): Promise<SumsReading<S>>;
export async function readSums(
  dir: string,
  keep: (file: string) => boolean,
  options: { signal?: AbortSignal | undefined; named?: number; into?: SumsStore } = {},
): Promise<SumsReading<SumsStore>> {
  const { signal, named = FIRST_DROPPED } = options;
  const sums = options.into ?? new Map<string, string>();
  const result: SumsReading<SumsStore> = { sums, dropped: { count: 0, first: [] }, problems: [], problemCount: 0 };
  const problem = (text: string): void => {
    result.problemCount += 1;
    if (result.problems.length < MAX_PROBLEMS) result.problems.push(text);
  };
  const seen = new Set<string>();
  let lineNumber = 0;
  const line = (text: string): void => {
    lineNumber += 1;
    if (text === '') return;
    const listed = sumsLine(text);
    if (listed === null) {
      problem(`${SUMS_PATH} line ${lineNumber} is not "<sha256>  <path>".`);
      return;
    }
    const { file } = listed;
    const unsafe = unsafeListedPath(file);
    if (unsafe !== null) {
      problem(`${SUMS_PATH} line ${lineNumber} lists "${file}", which ${unsafe}; it was not read.`);
      return;
    }
    if (!keep(file)) {
      if (seen.has(file)) problem(`${SUMS_PATH} lists ${file} more than once (again on line ${lineNumber}).`);
      else {
        seen.add(file);
        result.dropped.count += 1;
        if (result.dropped.first.length < named) result.dropped.first.push(file);
      }
      return;
    }
    if (result.sums.has(file)) {
      problem(`${SUMS_PATH} lists ${file} more than once (again on line ${lineNumber}).`);
      return;
    }
    result.sums.set(file, listed.sha256);
  };

  const fd = openSums(dir);
  try {
    let read = 0;
    for (const text of fileLines(fd)) {
      if (text === null) {
        lineNumber += 1;
        problem(tooLong(lineNumber));
      } else line(text);
      if (++read % LINES_PER_TURN === 0) {
        await nextTurn();
        throwIfStopped(signal);
      }
    }
  } finally {
    closeSync(fd);
  }
  return result;
}

/** Lines of SHA256SUMS read between two turns of the event loop. */
const LINES_PER_TURN = 8192;

/** Opens `<dir>/_cv-snapshot/SHA256SUMS` as readRegularFile would; its descriptor, for fileLines. */
export function openSums(dir: string): number {
  const segments = SUMS_PATH.split('/');
  const meta = path.join(dir, segments[0]!);
  const stats = lstatSync(meta);
  if (!stats.isDirectory()) throw new NotRegularFileError(meta, kindOf(stats));
  return openRegularFile(path.join(dir, ...segments)).fd;
}

/**
 * The lines of the open file `fd`, read a chunk of `chunkBytes` at a time (memory holds a chunk and a line, whatever
 * the file's size): each line's text without its newline, or null for a line longer than MAX_LINE_BYTES, which is
 * skipped.
 */
export function* fileLines(fd: number, chunkBytes = CHUNK_BYTES): Generator<string | null> {
  const chunk = Buffer.allocUnsafe(chunkBytes);
  let carry = Buffer.alloc(0);
  let overlong = false;
  for (;;) {
    const read = readSync(fd, chunk, 0, chunkBytes, null);
    if (read === 0) break;
    let bytes = chunk.subarray(0, read);
    let start = 0;
    for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, start)) {
      const length = carry.length + newline - start;
      if (overlong || length > MAX_LINE_BYTES) {
        overlong = false;
        yield null;
      } else {
        const rest = bytes.subarray(start, newline);
        yield (carry.length > 0 ? Buffer.concat([carry, rest]) : rest).toString('utf8');
      }
      carry = Buffer.alloc(0);
      start = newline + 1;
    }
    bytes = bytes.subarray(start);
    if (!overlong) {
      carry = Buffer.concat([carry, bytes]);
      if (carry.length > MAX_LINE_BYTES) {
        overlong = true;
        carry = Buffer.alloc(0);
      }
    }
  }
  if (overlong) yield null;
  else if (carry.length > 0) yield carry.toString('utf8');
}
