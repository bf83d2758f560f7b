/**
 * Safe reads of a snapshot tree that may not be what crawl wrote: `verify`, `diff`, `export` and `pack` are given
 * directories and archives from elsewhere. Nothing here follows a symbolic link inside the tree, opens a named pipe,
 * socket or device (any of which could block forever or read another file), or reads a file whole without a size
 * limit. The snapshot's own directory may be a symbolic link: `--out` is one. The manifest (read-manifest.ts),
 * SHA256SUMS (read-sums.ts) and the walk of a tree (walk-tree.ts) are read through these.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import path from 'node:path';
import { CvSnapshotError } from '../util/errors.js';
import { JsonTooDeepError, parseJson } from '../json/parse-json.js';
import type { Memo } from '../url/memo.js';
import { REPORT_PATH } from './manifest.js';

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
export class FileTooLargeError extends Error {
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
