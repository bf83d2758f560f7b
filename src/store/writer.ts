/**
 * Writes files into a snapshot tree and remembers each file's SHA-256 for SHA256SUMS (and returns its size and hash
 * for the journal). Directories are created once each (parents first, from a bounded memory of recent ones); the hash
 * is taken from the bytes being written, never by reading back.
 *
 * Documents are small and many, so they are written with synchronous calls: an asynchronous write costs three
 * thread-pool round trips (open, write, close), which profiling showed to dominate the crawl's CPU time.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Memo } from '../url/memo.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { writeFully } from '../util/write-fully.js';

export interface WrittenFile {
  size: number;
  sha256: string;
}

export interface WriteOptions {
  /**
   * Fail with FileCollisionError when the file exists, instead of replacing it. A crawl writes each document once,
   * so in a fresh staging tree an existing file means that two URLs came to one path: a file system that folds
   * letter case or Unicode forms, for one. No set of paths is kept for that: the file system already knows.
   */
  exclusive?: boolean;
}

export class FileCollisionError extends Error {
  constructor(
    readonly file: string,
    /** What is in the way: the path itself as a file or a directory, or a file where a directory of it should be. */
    claimed: 'file' | 'directory' | 'parent',
  ) {
    super(
      `${file} cannot be written: another document of the snapshot already claims ` +
        `${claimed === 'parent' ? 'a directory of that path as a file' : `that path as a ${claimed}`}.`,
    );
  }
}

/** What holds `target` when it cannot be created (`code` from open or mkdir). */
function claimedAs(target: string, code: string | undefined): 'file' | 'directory' | 'parent' {
  if (code === 'ENOTDIR') return 'parent';
  return lstatSync(target, { throwIfNoEntry: false })?.isDirectory() === true ? 'directory' : 'file';
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Bytes of the file log kept in memory before they are written to its file. */
const LOG_BUFFER = 1024 * 1024;

/**
 * Path and SHA-256 of every file written, for SHA256SUMS. There is one entry per document, so they are kept in a file
 * (path length, path, 32 bytes of digest, appended), with only the last megabyte in memory: as a string, a map entry
 * and a hex string per file they took about 140 bytes of heap an entry, and as buffers in memory 22 MB at 200,000
 * documents, an eighth of the crawl's memory.
 */
class FileLog {
  readonly #fd: number;
  #buffer = Buffer.allocUnsafe(LOG_BUFFER);
  #used = 0;
  /** Bytes written to the file so far. */
  #written = 0;
  #closed = false;

  /** Starts an empty log in `file` (a file the crawl owns; anything there is replaced). */
  constructor(file: string) {
    this.#fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
  }

  add(file: string, digest: Buffer | string): void {
    const length = Buffer.byteLength(file);
    const need = 4 + length + 32;
    if (this.#used + need > this.#buffer.length) {
      this.#flush();
      if (need > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(need);
    }
    const buffer = this.#buffer;
    let at = buffer.writeUInt32LE(length, this.#used);
    at += buffer.write(file, at, 'utf8');
    if (typeof digest === 'string') buffer.write(digest, at, 32, 'hex');
    else digest.copy(buffer, at, 0, 32);
    this.#used = at + 32;
  }

  /**
   * Every file and its SHA-256 (hex), sorted by path (as JavaScript compares strings, so independent of locale), each
   * path once with the digest it was last written with (a document fetched again after --resume is written again).
   *
   * The entries are sorted a group at a time, so that only one group's paths are strings at once: at 240,000 files
   * one array of them all held about 30 MB, the peak of a whole crawl. A group is the files below one directory some
   * levels down (a collection's documents), or one file nearer the top; no group's key is a prefix of a path in
   * another group, so the groups in key order, each sorted, are the whole list sorted.
   */
  *sorted(): Generator<[string, string]> {
    this.#flush();
    let depth = GROUP_DEPTH;
    let groups = this.#group(depth);
    while (largest(groups) > GROUP_SIZE && groups.size < MAX_GROUPS && depth < MAX_GROUP_DEPTH) {
      depth += 1;
      groups = this.#group(depth);
    }
    const keys = [...groups.keys()].sort(byCodeUnits);
    // A group's entries lie in the file in the order written, among other groups': read through a window of the file,
    // not with a call per entry.
    const log = new LogWindow(this.#fd, this.#written);
    for (const key of keys) {
      const refs = groups.get(key)!;
      groups.delete(key);
      const entries: Array<{ file: string; digest: string }> = [];
      for (let i = 0; i < refs.length; i += 2) {
        const length = refs[i + 1]!;
        const start = log.at(refs[i]!, length);
        entries.push({
          file: log.bytes.toString('utf8', start + 4, start + length - 32),
          digest: log.bytes.toString('hex', start + length - 32, start + length),
        });
      }
      // Stable: of the entries for one path, the last one written is the last of its run.
      entries.sort((a, b) => byCodeUnits(a.file, b.file));
      for (let i = 0; i < entries.length; i += 1) {
        const { file, digest } = entries[i]!;
        if (entries[i + 1]?.file === file) continue;
        yield [file, digest];
      }
    }
  }

  /** Closes the log's file; the log takes nothing more. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }

  #flush(): void {
    writeFully(this.#fd, this.#buffer, this.#used, this.#written);
    this.#written += this.#used;
    this.#used = 0;
  }

  /**
   * The entries of the log by group: a group's key is a path's text through its `depth`-th slash, or the whole path
   * when it has fewer; each entry as its offset in the file and its length.
   */
  #group(depth: number): Map<string, number[]> {
    const groups = new Map<string, number[]>();
    const log = new LogWindow(this.#fd, this.#written);
    for (let at = 0; at < this.#written;) {
      const size = 4 + log.bytes.readUInt32LE(log.at(at, 4)) + 32;
      const start = log.at(at, size) + 4;
      const end = start + size - 36;
      let keyEnd = end;
      for (let i = start, slashes = 0; i < end; i += 1) {
        if (log.bytes[i] === SLASH && ++slashes === depth) {
          keyEnd = i + 1;
          break;
        }
      }
      // A slash never occurs inside a multi-byte UTF-8 character, so the key decodes as a prefix of the path.
      const key = log.bytes.toString('utf8', start, keyEnd);
      let refs = groups.get(key);
      if (refs === undefined) groups.set(key, (refs = []));
      refs.push(at, size);
      at += size;
    }
    return groups;
  }
}

/** A file log read a megabyte at a time: the bytes of an entry are found through `at`. */
class LogWindow {
  bytes = Buffer.allocUnsafe(LOG_BUFFER);
  /** Where in the file `bytes` starts, and how much of it is read. */
  #start = 0;
  #filled = 0;

  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {}

  /** Where in `bytes` the `length` bytes at `position` of the file are, after reading them in if they are not. */
  at(position: number, length: number): number {
    if (position < this.#start || position + length > this.#start + this.#filled) {
      if (this.bytes.length < length) this.bytes = Buffer.allocUnsafe(length);
      this.#start = position;
      this.#filled = Math.min(this.bytes.length, this.size - position);
      readFully(this.fd, this.bytes, this.#filled, position);
    }
    return position - this.#start;
  }
}

/** Reads `length` bytes at `position` of `fd` into `buffer`. */
function readFully(fd: number, buffer: Buffer, length: number, position: number): void {
  for (let done = 0; done < length;) {
    const read = readSync(fd, buffer, done, length - done, position + done);
    if (read === 0) throw new Error('the file log ended early');
    done += read;
  }
}

/** Path segments above a group's directory: `sms/cv/api/v1/<collection>/` for the usual root. */
const GROUP_DEPTH = 5;
/** A group larger than this is split a level further down, while the groups stay fewer than MAX_GROUPS. */
const GROUP_SIZE = 65_536;
const MAX_GROUPS = 65_536;
const MAX_GROUP_DEPTH = 32;
const SLASH = 0x2f;

function largest(groups: Map<string, number[]>): number {
  let size = 0;
  for (const refs of groups.values()) size = Math.max(size, refs.length / 2);
  return size;
}

/** Characters of small string parts joined into one write. */
const WRITE_CHARS = 64 * 1024;

/**
 * Where a string part is encoded before it is written and hashed: made once per thread, and large enough for a join
 * of small parts (under twice WRITE_CHARS characters, each at most three bytes in UTF-8). Encoding once into it
 * replaces three passes over the text (counting its bytes, encoding it for the write, encoding it again for the
 * hash), and a Buffer made per document, which is memory outside the heap that only a garbage collection gives back.
 */
const scratch = Buffer.allocUnsafeSlow(2 * WRITE_CHARS * 3);

/** Writes a part of a file and adds it to `hash`; its size in bytes. */
function writePart(fd: number, part: Buffer | string, hash: Hash): number {
  if (typeof part !== 'string') {
    writeFully(fd, part);
    hash.update(part);
    return part.length;
  }
  if (part.length * 3 > scratch.length) {
    // Larger than the scratch room (a whole document given as one string): written as a string, which Node encodes
    // into memory it frees at once, where a Buffer made for it would be kept until a garbage collection.
    const size = Buffer.byteLength(part);
    const written = writeSync(fd, part);
    if (written < size) writeFully(fd, Buffer.from(part).subarray(written));
    hash.update(part);
    return size;
  }
  const size = scratch.write(part);
  writeFully(fd, scratch, size);
  hash.update(scratch.subarray(0, size));
  return size;
}

export class TreeWriter {
  /**
   * Directories made or found recently. Bounded: a directory that has dropped out is met with EEXIST and found to
   * be one, which costs a system call, not memory that grows with the snapshot.
   */
  private readonly createdDirs = new Memo<true>(4096);
  /** The files written, for SHA256SUMS; none for a worker thread's writer, whose caller lists its files. */
  readonly #files: FileLog | undefined;

  /**
   * Writes into `dir`. `listing` is the file (outside the tree, owned by the run) where the list of files written is
   * kept for SHA256SUMS; false for a writer whose caller lists the files (a worker thread's).
   */
  constructor(
    readonly dir: string,
    options: { listing: string | false },
  ) {
    this.#files = options.listing === false ? undefined : new FileLog(options.listing);
  }

  /** Writes `bytes` at the relative POSIX path `file`. */
  write(file: string, content: Buffer | string, options?: WriteOptions): WrittenFile {
    return this.writeParts(file, [content], options);
  }

  /**
   * Writes the concatenation of `parts` at `file`, one part at a time (a large file never has to be in memory as a
   * whole), hashing as it goes.
   */
  writeParts(file: string, parts: Iterable<Buffer | string>, options?: WriteOptions): WrittenFile {
    const target = path.join(this.dir, file);
    this.ensureDir(path.dirname(target));
    let fd: number;
    try {
      // O_NOFOLLOW: a symlink planted in the tree is never written through.
      const replace = options?.exclusive === true ? constants.O_EXCL : constants.O_TRUNC;
      fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | replace | constants.O_NOFOLLOW, 0o644);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'ELOOP') {
        throw new FileCollisionError(file, claimedAs(target, code));
      }
      throw error;
    }
    const hash = createHash('sha256');
    let size = 0;
    // Small strings (a record's line of a download, a row of a page) are joined into writes of about WRITE_CHARS:
    // a system call per part cost more than the part.
    let pending: string[] = [];
    let pendingChars = 0;
    const flush = (): void => {
      if (pending.length === 0) return;
      const text = pending.length === 1 ? pending[0]! : pending.join('');
      size += writePart(fd, text, hash);
      pending = [];
      pendingChars = 0;
    };
    try {
      for (const part of parts) {
        if (typeof part === 'string' && part.length < WRITE_CHARS) {
          pending.push(part);
          pendingChars += part.length;
          if (pendingChars >= WRITE_CHARS) flush();
          continue;
        }
        flush();
        size += writePart(fd, part, hash);
      }
      flush();
    } finally {
      closeSync(fd);
    }
    const digest = hash.digest();
    this.#files?.add(file, digest);
    return { size, sha256: digest.toString('hex') };
  }

  /** Lists a file written elsewhere (by an earlier run, or a worker thread), so that it is in SHA256SUMS. */
  record(file: string, sha256: string): void {
    this.#listed().add(file, sha256);
  }

  ensureDir(dir: string): void {
    if (this.createdDirs.get(dir) !== undefined) return;
    const parent = path.dirname(dir);
    if (dir === this.dir || parent === dir) {
      mkdirSync(dir, { recursive: true });
      this.createdDirs.set(dir, true);
      return;
    }
    // Parents first, from what is known: one mkdir per new directory, none that fails and is retried (a recursive
    // mkdir tries the leaf first, and does not tell which parents it made).
    this.ensureDir(parent);
    try {
      mkdirSync(dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A directory left by an interrupted run is reused; a symlink planted in its place is not followed.
      const existingDir = code === 'EEXIST' && lstatSync(dir).isDirectory();
      if (!existingDir) {
        if (code === 'EEXIST' || code === 'ENOTDIR') {
          throw new FileCollisionError(path.relative(this.dir, dir).split(path.sep).join('/'), claimedAs(dir, code));
        }
        throw error;
      }
    }
    this.createdDirs.set(dir, true);
  }

  /** Every file written and its SHA-256 (hex), sorted by path (byte order, so independent of locale); lazy. */
  listing(): Generator<[string, string]> {
    return this.#listed().sorted();
  }

  /** Closes the list's file (the writer lists nothing more). */
  close(): void {
    this.#files?.close();
  }

  #listed(): FileLog {
    if (this.#files === undefined) throw new Error('this writer keeps no list of the files it writes');
    return this.#files;
  }
}
