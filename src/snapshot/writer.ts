/**
 * Writes files into a snapshot tree and remembers each file's size and SHA-256 for the manifest and SHA256SUMS.
 * Directories are created once each; the hash is taken from the bytes being written, never by reading back.
 *
 * Documents are small and many, so they are written with synchronous calls: an asynchronous write costs three
 * thread-pool round trips (open, write, close), which profiling showed to dominate the crawl's CPU time.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';

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

export class TreeWriter {
  private readonly createdDirs = new Set<string>();
  private readonly files = new Map<string, WrittenFile>();

  constructor(readonly dir: string) {}

  /** Writes `bytes` at the relative POSIX path `file`. */
  write(file: string, content: Buffer | string): WrittenFile {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    const target = path.join(this.dir, ...file.split('/'));
    this.ensureDir(path.dirname(target));
    try {
      // O_NOFOLLOW: a symlink planted in the tree is never written through.
      const fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
      try {
        for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'ELOOP') throw new FileCollisionError(file, error);
      throw error;
    }
    const written = { size: bytes.length, sha256: sha256(bytes) };
    this.files.set(file, written);
    return written;
  }

  /** Records a file written by other means (a stream) so that it is listed in SHA256SUMS. */
  record(file: string, written: WrittenFile): void {
    this.files.set(file, written);
  }

  ensureDir(dir: string): void {
    if (this.createdDirs.has(dir)) return;
    const parent = path.dirname(dir);
    if (dir === this.dir || parent === dir) {
      mkdirSync(dir, { recursive: true });
      this.createdDirs.add(dir);
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
    this.createdDirs.add(dir);
  }

  /** Every file written, sorted by path (byte order, so independent of locale). */
  listing(): Array<[string, WrittenFile]> {
    return [...this.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  has(file: string): boolean {
    return this.files.has(file);
  }
}
