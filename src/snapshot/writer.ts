/**
 * Writes files into a snapshot tree and remembers each file's size and SHA-256 for the manifest and SHA256SUMS.
 * Directories are created once each; the hash is taken from the bytes being written, never by reading back.
 *
 * Documents are small and many, so they are written with synchronous calls: an asynchronous write costs three
 * thread-pool round trips (open, write, close), which profiling showed to dominate the crawl's CPU time.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
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
  write(file: string, bytes: Buffer | string): WrittenFile {
    const target = path.join(this.dir, ...file.split('/'));
    this.ensureDir(path.dirname(target));
    try {
      writeFileSync(target, bytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST') throw new FileCollisionError(file, error);
      throw error;
    }
    const written = { size: Buffer.byteLength(bytes), sha256: sha256(bytes) };
    this.files.set(file, written);
    return written;
  }

  /** Records a file written by other means (a stream) so that it is listed in SHA256SUMS. */
  record(file: string, written: WrittenFile): void {
    this.files.set(file, written);
  }

  ensureDir(dir: string): void {
    if (this.createdDirs.has(dir)) return;
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTDIR') {
        throw new FileCollisionError(path.relative(this.dir, dir).split(path.sep).join('/'), error);
      }
      throw error;
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
