/**
 * A safe tar.gz reader for the archives `pack` writes and for plain tar.gz from GNU tar (ustar prefix, pax `path`
 * and `size`, GNU long names). It extracts only directories and regular files, and only inside `into`: absolute
 * paths, `..`, symbolic and hard links, devices and FIFOs are refused with an error naming the entry. Streams.
 *
 * An archive from elsewhere may be a decompression bomb: a few hundred kB that expand to gigabytes or to millions
 * of files. Extraction stops before it writes past a limit on the bytes of its files and on its entries (see
 * `ExtractLimits`); each entry's size is in its header, so the check comes before the first byte is written.
 *
 * `into` must be empty or missing. Nothing can then be in the way (no existing file to overwrite, no existing
 * symbolic link to write through), files are created with O_EXCL, and on failure `into` is left as it was (empty,
 * or removed again when this call created it).
 */
import { constants, createReadStream, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { mkdir, open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Socket } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ArchiveError, stoppedBy, StoppedError, throwIfStopped } from '../util/errors.js';
import { parseJson } from '../json/parse-json.js';
import { MANIFEST_PATH } from '../format/manifest.js';
import { ByteReader } from './byte-reader.js';
import { BLOCK_SIZE, isZeroBlock, parseHeader, parsePaxRecords, padding } from './tar-format.js';
import { removeTree } from '../store/remove-tree.js';

/** Pax headers and GNU long names are read whole; anything larger than this is not a name. */
const MAX_META_BYTES = 1 << 20;

/**
 * Default limits, chosen from what snapshots are like: a packed snapshot expands about 7 times in file bytes and
 * holds about one entry per 60 bytes of archive (measured on the sample API). The limits leave ten times that
 * room, and a floor for small archives (and for an archive read from a pipe, whose size is not known in advance).
 */
export const EXTRACT_DEFAULTS = {
  bytesPerArchiveByte: 100,
  minBytes: 64 << 20,
  archiveBytesPerEntry: 4,
  minEntries: 100_000,
  /** Once the manifest is read: entries per document it counts (a file, and at most a few directories). */
  entriesPerDocument: 4,
} as const;

/** The most an extraction writes; undefined fields get the defaults (derived from the archive and its manifest). */
export interface ExtractLimits {
  /** Total bytes of the files extracted (--max-extract-bytes). */
  maxBytes?: number | undefined;
  /** Files and directories extracted (--max-extract-entries). */
  maxEntries?: number | undefined;
}

export interface ExtractOptions {
  limits?: ExtractLimits;
  /** Stops the extraction (StoppedError) and removes what it wrote. */
  signal?: AbortSignal | undefined;
}

const REFUSED_TYPES: Record<string, string> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '6': 'a named pipe',
  K: 'a long link name (GNU), which belongs to a link',
};

function mib(bytes: number): string {
  if (bytes >= 1 << 20) return `${Math.floor(bytes / (1 << 20))} MiB`;
  return bytes >= 1024 ? `${Math.floor(bytes / 1024)} KiB` : `${bytes} bytes`;
}

/** The limits in force, and the words that explain where each came from. */
class Budget {
  bytes = 0;
  entries = 0;
  maxBytes: number;
  maxEntries: number;
  private bytesWhy: string;
  private entriesWhy: string;

  constructor(
    private readonly file: string,
    archiveBytes: number | null,
    private readonly given: ExtractLimits,
  ) {
    const d = EXTRACT_DEFAULTS;
    const size = archiveBytes ?? 0;
    const of = archiveBytes === null ? 'an archive read from a pipe' : `an archive of ${mib(size)}`;
    this.maxBytes = given.maxBytes ?? Math.max(d.minBytes, size * d.bytesPerArchiveByte);
    this.bytesWhy =
      given.maxBytes !== undefined
        ? 'the --max-extract-bytes given'
        : `the limit for ${of}: ${d.bytesPerArchiveByte} times its size, at least ${mib(d.minBytes)}`;
    this.maxEntries = given.maxEntries ?? Math.max(d.minEntries, Math.floor(size / d.archiveBytesPerEntry));
    this.entriesWhy =
      given.maxEntries !== undefined
        ? 'the --max-extract-entries given'
        : `the limit for ${of}: one per ${d.archiveBytesPerEntry} bytes of it, at least ${d.minEntries}`;
  }

  /** The snapshot's manifest says how many documents it holds: a tighter bound on its entries, unless one was given. */
  manifestRead(documents: number, collections: number): void {
    if (this.given.maxEntries !== undefined) return;
    const d = EXTRACT_DEFAULTS;
    const bound = d.entriesPerDocument * (documents + collections + 16);
    if (bound < this.maxEntries) {
      this.maxEntries = bound;
      this.entriesWhy = `${d.entriesPerDocument} per document its manifest counts (${documents})`;
    }
  }

  addEntry(name: string): void {
    this.entries += 1;
    if (this.entries > this.maxEntries) {
      throw new ArchiveError(
        `${this.file} holds more than ${this.maxEntries} files and directories (${this.entriesWhy}); extraction ` +
          `stopped at "${name}". If the snapshot really is that large, raise --max-extract-entries.`,
      );
    }
  }

  addBytes(name: string, size: number): void {
    if (this.bytes + size > this.maxBytes) {
      throw new ArchiveError(
        `${this.file} expands to more than ${this.maxBytes} bytes (${this.bytesWhy}); extraction stopped before ` +
          `"${name}". If the snapshot really is that large, raise --max-extract-bytes.`,
      );
    }
    this.bytes += size;
  }
}

/** The entry's path as segments inside `into`, or an error when it would land anywhere else. */
function safeSegments(file: string, name: string): string[] {
  const refuse = (why: string): ArchiveError =>
    new ArchiveError(
      `${file} has an entry "${name}" that ${why}; it was not extracted. The archive is not a cv-snapshot ` +
        'archive, or it was tampered with.',
    );
  if (name.includes('\0')) throw refuse('contains a NUL byte');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.includes('\\')) {
    throw refuse('is an absolute path or uses backslashes');
  }
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw refuse('climbs out of the extraction directory with ".."');
  return segments;
}

/**
 * What is read after tar's end-of-archive marker: the second zero block and the zeros that fill tar's last record
 * (10 KiB with GNU tar's default blocking factor, 512 KiB with the largest factor in common use), then the end of
 * the gzip stream, whose CRC and length gzip checks there. Anything longer is not part of the archive (another
 * archive, or endless data, appended to it) and is never read: `<(cat snap.tar.gz; cat /dev/zero | gzip)` would
 * otherwise be read forever, nothing of it counted against --max-extract-bytes.
 */
const MAX_TRAILER_BYTES = 1 << 20;

async function readTrailer(file: string, reader: ByteReader): Promise<void> {
  // Bytes that are not gzip after the stream fail there, as damage does anywhere (toArchiveError).
  if (!(await reader.drain(MAX_TRAILER_BYTES))) {
    throw new ArchiveError(
      `${file} goes on for more than ${mib(MAX_TRAILER_BYTES)} after the end of its tar archive; something was ` +
        'appended to it (another archive, or endless data), and it was not read. Pack or download it again.',
    );
  }
}

/** Entries up to this size are collected and written with one sync call; larger ones are streamed. */
const WRITE_WHOLE_LIMIT = 1 << 18;

/** Writes one file entry; returns its bytes when it was small enough to be read whole. */
async function writeEntryFile(target: string, reader: ByteReader, size: number): Promise<Buffer | null> {
  // wx: a second entry with the same path, or anything already at the path, is an error, never an overwrite.
  if (size <= WRITE_WHOLE_LIMIT) {
    // Most snapshot files are a few kB; a sync write saves the thread-pool round trips of open, write and close.
    const bytes = (await reader.exactly(size)) ?? Buffer.alloc(0);
    writeFileSync(target, bytes, { flag: 'wx', mode: 0o644 });
    return bytes;
  }
  const handle = await open(target, 'wx', 0o644);
  try {
    for await (const chunk of reader.chunks(size)) {
      for (let done = 0; done < chunk.length;) done += (await handle.write(chunk, done)).bytesWritten;
    }
  } finally {
    await handle.close();
  }
  return null;
}

/** A pax `size`: decimal digits only (Number() would also take `1e3`, `0x10` and ` 7`). */
function paxSize(file: string, value: string): number {
  const size = /^[0-9]{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(size)) {
    throw new ArchiveError(
      `${file} has a pax header with the size "${value.slice(0, 40)}", which is not a size; it is damaged.`,
    );
  }
  return size;
}

function paxRecords(file: string, data: Buffer): Map<string, string> {
  try {
    return parsePaxRecords(data);
  } catch {
    throw new ArchiveError(`${file} has a malformed pax extended header; the archive is damaged.`);
  }
}

/** Whether `segments` name the manifest at the archive's top or one folder down (an archive made by hand). */
function isManifest(segments: string[]): boolean {
  const rel = segments.join('/');
  return rel === MANIFEST_PATH || (segments.length === 3 && segments.slice(1).join('/') === MANIFEST_PATH);
}

/** The counts a manifest gives, when it is one; extraction does not judge it otherwise (verify and diff do). */
function manifestCounts(bytes: Buffer): { documents: number; collections: number } | null {
  try {
    const manifest = parseJson(bytes.toString('utf8')) as { documents?: unknown; collections?: unknown };
    const { documents, collections } = manifest;
    if (!Number.isSafeInteger(documents) || (documents as number) < 0) return null;
    if (typeof collections !== 'object' || collections === null) return null;
    return { documents: documents as number, collections: Object.keys(collections).length };
  } catch {
    return null;
  }
}

async function extractEntries(
  file: string,
  reader: ByteReader,
  into: string,
  budget: Budget,
  signal: AbortSignal | undefined,
): Promise<void> {
  // Directories made so far: a snapshot has many files per directory, and file creation is what extraction waits on.
  const made = new Set<string>([into]);
  const makeDir = (dir: string): void => {
    if (made.has(dir)) return;
    // Synchronous, as the small files are: an exit on a second signal then finds no mkdir in flight.
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    made.add(dir);
  };
  let longName: string | null = null;
  let pax = new Map<string, string>();
  for (;;) {
    throwIfStopped(signal);
    const block = await reader.exactly(BLOCK_SIZE);
    if (block === null) {
      throw new ArchiveError(
        `${file} ends without tar's end-of-archive blocks; it is truncated. Pack or download it again.`,
      );
    }
    if (isZeroBlock(block)) {
      await readTrailer(file, reader);
      return;
    }
    const header = parseHeader(block);
    if (header === null) {
      throw new ArchiveError(
        `${file} has a damaged tar header (its checksum does not match); pack or download it again.`,
      );
    }
    const paxSizeText = pax.get('size');
    const size = paxSizeText !== undefined ? paxSize(file, paxSizeText) : header.size;
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new ArchiveError(`${file} has an entry with an invalid size; it is damaged.`);
    }

    if (header.type === 'x' || header.type === 'g' || header.type === 'L') {
      if (size > MAX_META_BYTES) {
        throw new ArchiveError(
          `${file} has a ${size}-byte extended header; that is not a name, so the archive is refused.`,
        );
      }
      // Counted, or an endless run of them (each small, none an entry) would be read forever.
      budget.addBytes(header.path, BLOCK_SIZE + size);
      const data = (await reader.exactly(size)) ?? Buffer.alloc(0);
      await reader.skip(padding(size).length);
      // A global pax header ('g') sets defaults for the whole archive; none of its keys matter for a snapshot.
      if (header.type === 'x') pax = paxRecords(file, data);
      if (header.type === 'L') longName = data.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    const name = pax.get('path') ?? longName ?? header.path;
    pax = new Map();
    longName = null;

    const refused = REFUSED_TYPES[header.type];
    if (refused !== undefined) {
      throw new ArchiveError(
        `${file} has an entry "${name}" that is ${refused}; only directories and regular files are extracted, so ` +
          'the archive is refused.',
      );
    }
    const segments = safeSegments(file, name);
    const target = path.join(into, ...segments);
    if (header.type === '5') {
      budget.addEntry(name);
      try {
        makeDir(target);
      } catch (error) {
        throw inTheWay(file, name, error);
      }
      await reader.skip(size + padding(size).length);
    } else if (header.type === '0' || header.type === '7') {
      if (segments.length === 0) {
        throw new ArchiveError(`${file} has a file entry "${name}" without a name; the archive is damaged.`);
      }
      budget.addEntry(name);
      budget.addBytes(name, size);
      let bytes: Buffer | null;
      try {
        makeDir(path.dirname(target));
        bytes = await writeEntryFile(target, reader, size);
      } catch (error) {
        throw inTheWay(file, name, error);
      }
      await reader.skip(padding(size).length);
      if (bytes !== null && isManifest(segments)) {
        const counts = manifestCounts(bytes);
        if (counts !== null) budget.manifestRead(counts.documents, counts.collections);
      }
    } else {
      throw new ArchiveError(
        `${file} has an entry "${name}" of tar type "${header.type}", which is not a directory or a regular file; ` +
          'the archive is refused.',
      );
    }
  }
}

/** A file-system error while an entry is written: two entries for one path, or another error, named by entry. */
function inTheWay(file: string, name: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') {
    return new ArchiveError(
      `${file} has more than one entry at "${name}" (or a file where a directory is); the archive is damaged.`,
    );
  }
  return error;
}

/**
 * A named pipe (`<(curl …)`), read the way Node reads a piped stdin: without the thread pool, whose blocking read
 * of a pipe that sends nothing more could not be abandoned, and would even keep the process from exiting.
 * Non-blocking open: with no writer, the pipe reads as empty instead of waiting for one.
 */
function pipeStream(file: string): Readable {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  return new Socket({ fd, readable: true, writable: false });
}

function toArchiveError(file: string, error: unknown): Error {
  if (error instanceof ArchiveError || error instanceof StoppedError) return error;
  const err = error as NodeJS.ErrnoException;
  if (err.code === 'ENOENT' && err.path === file) return new ArchiveError(`${file} does not exist.`);
  if (err.code === 'ENOSPC') {
    return new ArchiveError(
      `${file} could not be extracted: the disk holding the temporary directory is full (${err.path ?? ''}). ` +
        'Free some space, or set TMPDIR to a directory on another disk.',
    );
  }
  if (err instanceof RangeError) {
    return new ArchiveError(`${file} is truncated (${err.message}); pack or download it again.`);
  }
  if (typeof err.code === 'string' && err.code.startsWith('Z_')) {
    return new ArchiveError(`${file} is not an intact .tar.gz (gzip says: ${err.message}); pack or download it again.`);
  }
  return new ArchiveError(`${file} could not be extracted: ${err.message}.`);
}

/**
 * Extracts the .tar.gz `file` (a regular file, or a named pipe such as `<(curl …)`) into `into`, within `limits`.
 * Stops with StoppedError when `signal` fires; on any failure `into` is left empty or removed.
 */
export async function extractArchive(file: string, into: string, options: ExtractOptions = {}): Promise<void> {
  const { signal } = options;
  const target = path.resolve(into);
  let created: string | undefined;
  let existing: string[];
  try {
    // The first directory mkdir made, if any: removed again on failure, so a failed extraction leaves no trace.
    created = await mkdir(target, { recursive: true });
    existing = await readdir(target);
  } catch (error) {
    throw new ArchiveError(`${into} cannot be used to extract ${file} into: ${(error as Error).message}.`);
  }
  if (existing.length > 0) {
    throw new ArchiveError(`${into} is not empty; extract ${file} into an empty or new directory.`);
  }
  const stats = await stat(file).catch(() => null);
  const budget = new Budget(file, stats?.isFile() === true ? stats.size : null, options.limits ?? {});
  const gunzip = createGunzip({ chunkSize: 1 << 16 });
  let source: Readable;
  try {
    source = stats?.isFIFO() === true ? pipeStream(file) : createReadStream(file);
  } catch (error) {
    if (created !== undefined) await removeTree(created);
    throw toArchiveError(file, error);
  }
  // pipeline forwards a read error (missing file) into gunzip, whose iterator then throws it.
  pipeline(source, gunzip, () => undefined);
  // A pipe may never send another byte: the signal ends the wait by failing the stream.
  const onAbort = (): void => {
    if (signal !== undefined) gunzip.destroy(stoppedBy(signal));
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const iterator = gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    throwIfStopped(signal);
    await extractEntries(file, new ByteReader(iterator), target, budget, signal);
  } catch (error) {
    await iterator.return?.();
    if (created !== undefined) {
      await removeTree(created);
    } else {
      const entries = await readdir(target).catch(() => []);
      for (const entry of entries) await removeTree(path.join(target, entry));
    }
    throw toArchiveError(file, error);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await iterator.return?.();
  }
}
