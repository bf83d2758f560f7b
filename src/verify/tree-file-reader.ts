/**
 * The files of the tree, read one after the other for verify's check (tree-check.ts): each one's SHA-256, and its
 * bytes when they are to be read (a document, a catalogue page).
 *
 * A snapshot of 200,000 documents has some 240,000 files, 450 MB in all. Read each into a buffer of its own, and
 * every buffer of more than 4 kB is memory of its own outside the JavaScript heap until the garbage collector frees
 * it, a few megabytes at any moment, and left free in malloc's heap afterwards. Here one buffer serves every file
 * up to `REUSED_BYTES`, the others are read whole in a buffer of their own when their bytes are asked for, and
 * hashed a piece at a time when not (the catalogue's search index, 10 MB at 200,000 documents, is only hashed).
 */
import { hash as hashOnce, createHash } from 'node:crypto';
import { closeSync, readSync } from 'node:fs';
import { openRegularFile, readInto } from '../format/safe-read.js';

/** The size of the buffer read into again and again: larger than all but a few hundred files of 240,000. */
const REUSED_BYTES = 256 << 10;

export interface TreeFile {
  /** The file's bytes (only when asked for, and not too large): valid until the next file is read. */
  bytes: Buffer | null;
  /** Its SHA-256, lowercase hex. */
  sha256: string;
}

export class TreeFileReader {
  readonly #buffer = Buffer.allocUnsafeSlow(REUSED_BYTES);

  /**
   * Reads the regular file at `file` (NotRegularFileError for anything else): its SHA-256 and, when `wanted` and it
   * holds at most `maxBytes`, its bytes; the bytes are those of its size when it was opened, or fewer if it shrank.
   */
  read(file: string, wanted: boolean, maxBytes: number): TreeFile {
    const { fd, size } = openRegularFile(file);
    try {
      // Beyond maxBytes a file is hashed to its end, whatever its size was; below, as far as its size was.
      if (!wanted || size > maxBytes) {
        return { bytes: null, sha256: this.#hashInPieces(fd, size > maxBytes ? Infinity : size) };
      }
      const bytes = size <= REUSED_BYTES ? this.#buffer.subarray(0, size) : Buffer.allocUnsafe(size);
      const read = readInto(fd, bytes);
      const view = read === size ? bytes : bytes.subarray(0, read);
      return { bytes: view, sha256: hashOnce('sha256', view, 'hex') };
    } finally {
      closeSync(fd);
    }
  }

  /** The SHA-256 of the first `limit` bytes of the open file `fd` (fewer if it ends sooner), a buffer at a time. */
  #hashInPieces(fd: number, limit: number): string {
    const hash = createHash('sha256');
    const chunk = this.#buffer;
    for (let left = limit; left > 0;) {
      const read = readSync(fd, chunk, 0, Math.min(chunk.length, left), null);
      if (read === 0) break;
      hash.update(chunk.subarray(0, read));
      left -= read;
    }
    return hash.digest('hex');
  }
}
