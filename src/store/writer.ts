/**
 * Writes files into a snapshot tree and remembers each file's SHA-256 for SHA256SUMS (and returns its size and hash
 * for the journal). Directories are created once each (parents first, from a bounded memory of recent ones); the hash
 * is taken from the bytes being written, never by reading back.
 *
 * Documents are small and many, so they are written with synchronous calls: an asynchronous write costs three
 * thread-pool round trips (open, write, close), which profiling showed to dominate the crawl's CPU time.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Memo } from '../url/memo.js';

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

/** Size of one piece of the file log. */
const LOG_CHUNK = 1024 * 1024;

/**
 * Path and SHA-256 of every file written, for SHA256SUMS. There is one entry per document, so they are kept off the
 * JavaScript heap, in an append-only log of 1 MB buffers (path length, path, 32 bytes of digest), rather than as a
 * string, a map entry and a hex string per file: the heap stays small and the garbage collector never walks them.
 */
class FileLog {
  /** Full pieces, each cut to the bytes used. */
  readonly #full: Buffer[] = [];
  #chunk = Buffer.alloc(0);
  #used = 0;

  add(file: string, digest: Buffer | string): void {
    const length = Buffer.byteLength(file);
    const need = 4 + length + 32;
    if (this.#used + need > this.#chunk.length) {
      if (this.#used > 0) this.#full.push(this.#chunk.subarray(0, this.#used));
      this.#chunk = Buffer.allocUnsafe(Math.max(LOG_CHUNK, need));
      this.#used = 0;
    }
    const chunk = this.#chunk;
    let at = chunk.writeUInt32LE(length, this.#used);
    at += chunk.write(file, at, 'utf8');
    if (typeof digest === 'string') chunk.write(digest, at, 32, 'hex');
    else digest.copy(chunk, at, 0, 32);
    this.#used = at + 32;
  }

  /**
   * Every file and its SHA-256 (hex), sorted by path (byte order, so independent of locale), each path once with
   * the digest it was last written with (a document fetched again after --resume is written again).
   */
  *sorted(): Generator<[string, string]> {
    const entries: Array<{ file: string; chunk: Buffer; digestAt: number }> = [];
    for (const chunk of [...this.#full, this.#chunk.subarray(0, this.#used)]) {
      for (let at = 0; at < chunk.length;) {
        const length = chunk.readUInt32LE(at);
        const file = chunk.toString('utf8', at + 4, at + 4 + length);
        entries.push({ file, chunk, digestAt: at + 4 + length });
        at += 4 + length + 32;
      }
    }
    // Stable: of the entries for one path, the last one written is the last of its run.
    entries.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    for (let i = 0; i < entries.length; i += 1) {
      const { file, chunk, digestAt } = entries[i]!;
      if (entries[i + 1]?.file === file) continue;
      yield [file, chunk.toString('hex', digestAt, digestAt + 32)];
    }
  }
}

export class TreeWriter {
  /**
   * Directories made or found recently. Bounded: a directory that has dropped out is met with EEXIST and found to
   * be one, which costs a system call, not memory that grows with the snapshot.
   */
  private readonly createdDirs = new Memo<true>(4096);
  private readonly files = new FileLog();

  readonly #listing: boolean;

  /** `listing: false`: the files written are not listed (a worker thread's writer; its caller lists them). */
  constructor(
    readonly dir: string,
    options: { listing?: boolean } = {},
  ) {
    this.#listing = options.listing !== false;
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
    try {
      for (const part of parts) {
        const bytes = typeof part === 'string' ? Buffer.from(part) : part;
        for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
        hash.update(bytes);
        size += bytes.length;
      }
    } finally {
      closeSync(fd);
    }
    const digest = hash.digest();
    if (this.#listing) this.files.add(file, digest);
    return { size, sha256: digest.toString('hex') };
  }

  /** Lists a file written elsewhere (by an earlier run, or a worker thread), so that it is in SHA256SUMS. */
  record(file: string, sha256: string): void {
    this.files.add(file, sha256);
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
    return this.files.sorted();
  }
}
