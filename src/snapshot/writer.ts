/**
 * Writes files into a snapshot tree and remembers each file's size and SHA-256 for the manifest and SHA256SUMS.
 * Directories are created once each (parents first, from a bounded memory of recent ones); the hash is taken from
 * the bytes being written, never by reading back.
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

export class FileCollisionError extends Error {
  constructor(readonly file: string, cause: unknown) {
    super(
      `${file} cannot be written: another document of the snapshot already claims that path as a ` +
        `${(cause as NodeJS.ErrnoException).code === 'EISDIR' ? 'directory' : 'file'}.`,
    );
  }
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Size and SHA-256 of every file written, for SHA256SUMS: one entry per document, so kept compactly (the path, an
 * index, 32 bytes of digest and a size) rather than as an object and a 64-character hex string per file.
 */
class FileTable {
  readonly #index = new Map<string, number>();
  #digests = Buffer.alloc(32 * 1024);
  #sizes = new Float64Array(1024);

  set(file: string, size: number, digest: Buffer | string): void {
    let i = this.#index.get(file);
    if (i === undefined) {
      i = this.#index.size;
      this.#index.set(file, i);
      if (i === this.#sizes.length) this.#grow();
    }
    if (typeof digest === 'string') this.#digests.write(digest, i * 32, 32, 'hex');
    else digest.copy(this.#digests, i * 32);
    this.#sizes[i] = size;
  }

  has(file: string): boolean {
    return this.#index.has(file);
  }

  /** Every file, sorted by path (byte order, so independent of locale). */
  sorted(): Array<[string, WrittenFile]> {
    return [...this.#index]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([file, i]) => [file, { size: this.#sizes[i]!, sha256: this.#digests.toString('hex', i * 32, i * 32 + 32) }]);
  }

  #grow(): void {
    const digests = Buffer.alloc(this.#digests.length * 2);
    this.#digests.copy(digests);
    this.#digests = digests;
    const sizes = new Float64Array(this.#sizes.length * 2);
    sizes.set(this.#sizes);
    this.#sizes = sizes;
  }
}

export class TreeWriter {
  /**
   * Directories made or found recently. Bounded: a directory that has dropped out is met with EEXIST and found to
   * be one, which costs a system call, not memory that grows with the snapshot.
   */
  private readonly createdDirs = new Memo<true>(8192);
  private readonly files = new FileTable();

  constructor(readonly dir: string) {}

  /** Writes `bytes` at the relative POSIX path `file`. */
  write(file: string, content: Buffer | string): WrittenFile {
    return this.writeParts(file, [content]);
  }

  /**
   * Writes the concatenation of `parts` at `file`, one part at a time (a large file never has to be in memory as a
   * whole), hashing as it goes.
   */
  writeParts(file: string, parts: Iterable<Buffer | string>): WrittenFile {
    const target = path.join(this.dir, ...file.split('/'));
    this.ensureDir(path.dirname(target));
    let fd: number;
    try {
      // O_NOFOLLOW: a symlink planted in the tree is never written through.
      fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'ELOOP') throw new FileCollisionError(file, error);
      throw error;
    }
    const hash = createHash('sha256');
    let size = 0;
    try {
      for (const part of parts) {
        const bytes = typeof part === 'string' ? Buffer.from(part) : part;
        for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
        hash.update(bytes);
        size += bytes.length;
      }
    } finally {
      closeSync(fd);
    }
    const digest = hash.digest();
    this.files.set(file, size, digest);
    return { size, sha256: digest.toString('hex') };
  }

  /** Records a file written by other means (a stream) so that it is listed in SHA256SUMS. */
  record(file: string, written: WrittenFile): void {
    this.files.set(file, written.size, written.sha256);
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
          throw new FileCollisionError(path.relative(this.dir, dir).split(path.sep).join('/'), error);
        }
        throw error;
      }
    }
    this.createdDirs.set(dir, true);
  }

  /** Every file written, sorted by path (byte order, so independent of locale). */
  listing(): Array<[string, WrittenFile]> {
    return this.files.sorted();
  }

  has(file: string): boolean {
    return this.files.has(file);
  }
}
