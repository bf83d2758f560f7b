/**
 * Reading a snapshot tree that may not be what crawl wrote: `verify`, `diff` and `pack` are given directories and
 * archives from elsewhere. Nothing here follows a symbolic link inside the tree, opens a named pipe, socket or
 * device (any of which could block forever or read another file), or reads a file whole without a size limit.
 * The snapshot's own directory may be a symbolic link: `--out` is one.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { CvSnapshotError, throwIfStopped } from '../util/errors.js';
import type * as z from 'zod';
import { JsonTooDeepError, parseJson } from '../json/parse-json.js';
import type { Memo } from '../url/memo.js';
import { manifestSchema, MANIFEST_PATH, REPORT_PATH, type Manifest } from './manifest.js';
import { SUMS_PATH, sumsLine } from '../store/sums.js';

/** The path given is not a snapshot: missing, a file that is not an archive, a directory without a manifest. */
export class NotASnapshotError extends CvSnapshotError {}

/** What to give instead, appended to every NotASnapshotError. */
export const GIVE_A_SNAPSHOT = 'Give a directory that crawl wrote (--out) or an archive that pack wrote.';

/**
 * O_NOFOLLOW: a symbolic link is refused (ELOOP), not read through. O_NONBLOCK: opening a named pipe returns at
 * once instead of waiting for a writer; the pipe is then refused by fstat without a byte read. Neither flag
 * changes how a regular file reads.
 */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** What an entry is, for a sentence: "… is a named pipe". */
export function kindOf(entry: Stats | Dirent): string {
  if (entry.isSymbolicLink()) return 'a symbolic link';
  if (entry.isFIFO()) return 'a named pipe';
  if (entry.isSocket()) return 'a socket';
  if (entry.isBlockDevice() || entry.isCharacterDevice()) return 'a device';
  if (entry.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/** A path in the tree that is not a regular file (or a directory where a file was expected); never opened. */
export class NotRegularFileError extends Error {
  constructor(
    readonly file: string,
    readonly kind: string,
  ) {
    super(`${file} is ${kind}`);
  }
}

/** A file larger than the caller reads whole. */
class FileTooLargeError extends Error {
  constructor(
    readonly file: string,
    readonly limit: number,
  ) {
    super(`${file} is larger than ${limit} bytes`);
  }
}

/** Opens `file` for reading if it is a regular file (not through a final symbolic link); its descriptor and size. */
export function openRegularFile(file: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw new NotRegularFileError(file, 'a symbolic link');
    if (code === 'ENXIO') throw new NotRegularFileError(file, 'a socket');
    if (code === 'EISDIR') throw new NotRegularFileError(file, 'a directory');
    throw error;
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw new NotRegularFileError(file, kindOf(stats));
  }
  return { fd, size: stats.size };
}

/** The bytes of a regular file, at most `maxBytes` of them (FileTooLargeError beyond). */
export function readRegularFile(file: string, maxBytes = Number.MAX_SAFE_INTEGER): Buffer {
  const { fd, size } = openRegularFile(file);
  try {
    if (size > maxBytes) throw new FileTooLargeError(file, maxBytes);
    return readOpenFile(fd, size);
  } finally {
    closeSync(fd);
  }
}

/** Fills `bytes` from the open file `fd`, from where it is: how many bytes it held (fewer if it ended sooner). */
export function readInto(fd: number, bytes: Buffer): number {
  let done = 0;
  while (done < bytes.length) {
    const read = readSync(fd, bytes, done, bytes.length - done, null);
    if (read === 0) break;
    done += read;
  }
  return done;
}

/** The bytes of the file open at `fd`, `size` of them as fstat said (fewer if it shrank since). */
function readOpenFile(fd: number, size: number): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  const done = readInto(fd, buffer);
  return done === size ? buffer : buffer.subarray(0, done);
}

/**
 * Directories a reader of many files remembers as checked (`checked` of readSnapshotFile, two generations of this
 * many): a record's documents share most of theirs, and so do neighbours in SHA256SUMS's order.
 */
export const CHECKED_DIRS = 4096;

/**
 * A file of the snapshot at `root` by its relative POSIX path: every directory on the way must be a real directory
 * (not a symbolic link), and the file a regular file. A reader of many files passes `checked`, the directories it
 * has found to be directories, so that each is looked at once rather than for every file below it.
 */
export function readSnapshotFile(root: string, rel: string, maxBytes?: number, checked?: Memo<true>): Buffer {
  const segments = rel.split('/');
  // A path built from a manifest's names (a collection called `../..`) must not lead out of the snapshot.
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\'))) {
    throw new NotRegularFileError(rel, 'not a path inside the snapshot');
  }
  let at = root;
  for (const segment of segments.slice(0, -1)) {
    at = path.join(at, segment);
    if (checked?.get(at) !== undefined) continue;
    const stats = lstatSync(at);
    if (!stats.isDirectory()) throw new NotRegularFileError(at, kindOf(stats));
    checked?.set(at, true);
  }
  return readRegularFile(path.join(at, segments.at(-1)!), maxBytes);
}

/** A snapshot file that cannot be used; its message ends a sentence that names the file ("is not valid JSON (…)"). */
export class UnusableFileError extends Error {}

/**
 * The JSON of a snapshot file, read as readSnapshotFile reads it and parsed with parseJson (numbers kept, depth
 * bounded); undefined when the file does not exist. Anything else that stops it is an UnusableFileError.
 */
export function readSnapshotJson(root: string, rel: string, maxBytes: number, checked?: Memo<true>): unknown {
  let text: string;
  try {
    text = readSnapshotFile(root, rel, maxBytes, checked).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof NotRegularFileError)
      throw new UnusableFileError(`cannot be read: ${error.message}, never opened`);
    throw new UnusableFileError(`could not be read (${firstLine(error)})`);
  }
  try {
    return parseJson(text);
  } catch (error) {
    throw new UnusableFileError(
      error instanceof JsonTooDeepError
        ? `cannot be read: ${error.message}`
        : `is not valid JSON (${firstLine(error)})`,
    );
  }
}

/** A report is read whole; crawl keeps it small (at most 1,000 findings per rule). */
const MAX_REPORT_BYTES = 256 << 20;

/**
 * The JSON of the snapshot's validation report (`_cv-snapshot/report.json`), for verify and the catalogue's findings
 * page, each of which checks the shape it needs. Throws as readSnapshotFile and parseJson do.
 */
export function readReportJson(dir: string): unknown {
  return parseJson(readSnapshotFile(dir, REPORT_PATH, MAX_REPORT_BYTES).toString('utf8'));
}

export interface TreeVisitor {
  /** A regular file, with its size. */
  file(rel: string, size: number): void;
  /** A directory, before its contents; return false to leave its contents unvisited. */
  dir?(rel: string): boolean;
  /** Anything else (symbolic link, named pipe, socket, device): never followed or opened. */
  special(rel: string, kind: string): void;
}

/** Directories read between two turns of the event loop, so that a signal is seen while a large tree is walked. */
const DIRS_PER_TURN = 256;

/**
 * Visits every entry below `root` (paths relative to it, POSIX separators), directories before their contents.
 * Synchronous reads in batches: a snapshot has tens of thousands of small directories, and a thread-pool round
 * trip per directory costs more than the read itself.
 */
export async function walkTree(root: string, visitor: TreeVisitor, signal?: AbortSignal): Promise<void> {
  const stack: string[] = [''];
  let read = 0;
  while (stack.length > 0) {
    const relDir = stack.pop()!;
    const dirents = readdirSync(relDir === '' ? root : path.join(root, ...relDir.split('/')), { withFileTypes: true });
    for (const dirent of dirents) {
      const rel = relDir === '' ? dirent.name : `${relDir}/${dirent.name}`;
      if (dirent.isDirectory()) {
        if (visitor.dir?.(rel) !== false) stack.push(rel);
      } else if (dirent.isFile()) {
        // Dirent types come from readdir without a stat (on most file systems); the size needs one lstat.
        visitor.file(rel, lstatSync(path.join(root, ...rel.split('/'))).size);
      } else {
        visitor.special(rel, kindOf(dirent));
      }
    }
    if (++read % DIRS_PER_TURN === 0) {
      await nextTurn();
      throwIfStopped(signal);
    }
  }
}

/**
 * A file-system error that escaped the checks above (a directory that cannot be read, an I/O error), as one
 * sentence naming the path; anything else is returned as it is.
 */
export function readFailure(error: unknown): unknown {
  const err = error as NodeJS.ErrnoException;
  if (error instanceof CvSnapshotError || !(error instanceof Error) || typeof err.code !== 'string') return error;
  const verb = err.syscall === 'mkdir' || err.syscall === 'write' || err.syscall === 'rename' ? 'write' : 'read';
  const what = err.path === undefined ? 'a file' : err.path;
  if (err.code === 'ENAMETOOLONG') {
    return new CvSnapshotError(
      `Cannot ${verb} ${what}: its path is longer than the file system allows. A snapshot never holds a file ` +
        'path over 1,024 bytes (an older cv-snapshot could store one): crawl the source again.',
    );
  }
  return new CvSnapshotError(
    `Cannot ${verb} ${what} (${firstLine(err.message)}). Check that path, its permissions and the disk.`,
  );
}

/** The first line of an error's message, for a sentence that quotes it. */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

/** A manifest may list every URL a partial crawl missed: far more than any real one, yet a bound on memory. */
const MAX_MANIFEST_BYTES = 256 << 20;

/**
 * The manifest of the snapshot in `dir`, read through the schema. `name` is the snapshot as the user gave it (an
 * archive's name, not its temporary extraction). Throws NotASnapshotError with one sentence saying what is wrong.
 */
export function readSnapshotManifest(dir: string, name: string, give = GIVE_A_SNAPSHOT): Manifest {
  return readSnapshotManifestJson(dir, name, give).manifest;
}

/**
 * The manifest as readSnapshotManifest checks it, with the JSON it was read from: every member as the file holds it,
 * in its order, unknown ones included, for a command that writes the manifest back changed (`cv-snapshot
 * catalogue`). The file is read once, so what is written back is what was checked.
 */
export function readSnapshotManifestJson(
  dir: string,
  name: string,
  give = GIVE_A_SNAPSHOT,
): { manifest: Manifest; json: Record<string, unknown> } {
  const json = readManifestJson(dir, name, give);
  const manifest = checkedManifest(manifestThrough(json, name, manifestSchema, give), name, give);
  // The schema took it as an object, so it is one.
  return { manifest, json: json as Record<string, unknown> };
}

/**
 * `manifest` (read through the schema) when it is one that crawl writes, else NotASnapshotError with one sentence:
 * what the schema cannot say (a root that is no http(s) URL, absolute links without a base URL). `give`: what to
 * give instead, the sentence that ends the message (a command that takes no archive says so).
 */
function checkedManifest(manifest: Manifest, name: string, give: string): Manifest {
  const { root } = manifest.source;
  const refuse = (why: string): NotASnapshotError =>
    new NotASnapshotError(`${name}: ${MANIFEST_PATH} is not a cv-snapshot manifest (${why}). ${give}`);
  if (!URL.canParse(root) || !/^https?:$/.test(new URL(root).protocol)) {
    throw refuse('"source.root" is not an http or https URL');
  }
  if (manifest.options.links === 'absolute' && manifest.options.baseUrl === null) {
    throw refuse('"options.links" is absolute, but "options.baseUrl" is null');
  }
  return manifest;
}

/**
 * The manifest read through `schema`: pack reads only the fields it needs, so that other manifest versions do. Every
 * failure is a NotASnapshotError of one sentence, ended by `give` as checkedManifest's are.
 */
export function readManifestWith<T>(dir: string, name: string, schema: z.ZodType<T>, give = GIVE_A_SNAPSHOT): T {
  return manifestThrough(readManifestJson(dir, name, give), name, schema, give);
}

/** The manifest file's JSON, not yet checked; NotASnapshotError (one sentence) when it cannot be read or parsed. */
function readManifestJson(dir: string, name: string, give: string): unknown {
  const where = `${name}: ${MANIFEST_PATH}`;
  let bytes: Buffer;
  try {
    bytes = readSnapshotFile(dir, MANIFEST_PATH, MAX_MANIFEST_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new NotASnapshotError(`${name} is not a cv-snapshot snapshot: it has no ${MANIFEST_PATH}. ${give}`);
    }
    if (error instanceof NotRegularFileError) {
      const file = path.relative(dir, error.file) || '.';
      throw new NotASnapshotError(`${where} cannot be read: ${file} is ${error.kind}, which a snapshot never holds.`);
    }
    if (error instanceof FileTooLargeError) {
      throw new NotASnapshotError(
        `${where} is larger than ${MAX_MANIFEST_BYTES} bytes; it is not a manifest that crawl wrote.`,
      );
    }
    throw new NotASnapshotError(`${where} cannot be read (${firstLine(error)}).`);
  }
  let json: unknown;
  try {
    json = parseJson(bytes.toString('utf8'));
  } catch (error) {
    // The parser's own message quotes the bytes it stopped at, cut mid-word: what matters is that it is not JSON.
    const why =
      error instanceof JsonTooDeepError ? error.message : 'not valid JSON, so not a manifest that crawl wrote';
    const what = why.startsWith('it ') ? `unreadable (${why})` : why;
    throw new NotASnapshotError(`${where} is ${what}. ${give}`);
  }
  return json;
}

/** The manifest's JSON read through `schema`; NotASnapshotError naming the first field it refuses. */
function manifestThrough<T>(json: unknown, name: string, schema: z.ZodType<T>, give: string): T {
  const where = `${name}: ${MANIFEST_PATH}`;
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? `"${issue.path.join('.')}"` : 'the document';
    throw new NotASnapshotError(`${where} is not a cv-snapshot manifest (${field}: ${issue.message}). ${give}`);
  }
  return parsed.data;
}

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
