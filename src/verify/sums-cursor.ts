/**
 * The checksums of SHA256SUMS read a second time, in step with verify's check of the files, instead of kept in
 * memory: when SHA256SUMS lists the tree's files in the order verify checks them (`byCodeUnits`, as crawl writes
 * it), the checksum of each file is that of the next line naming it. Memory holds one chunk of the file. Lines that
 * name no file verify checks are passed over; readSums has reported what was wrong with them.
 */
import { closeSync, readSync } from 'node:fs';
import { openRegularFile, SUMS_LINE } from '../format/read-snapshot.js';

const CHUNK_BYTES = 1 << 20;
/** A line longer than this names no file of the tree (a path is at most a few thousand bytes): it is passed over. */
const MAX_LINE_BYTES = 16 << 10;

/** SHA256SUMS no longer lists a file it listed when verify first read it. */
export class SumsChangedError extends Error {}

export class SumsCursor {
  readonly #fd: number;
  readonly #chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  /** The bytes read and not yet split into lines. */
  #bytes: Buffer = Buffer.alloc(0);
  #ended = false;

  /** `file`: SHA256SUMS, a regular file (readSums has opened it the same way). */
  constructor(file: string) {
    this.#fd = openRegularFile(file).fd;
  }

  /** The checksum of the next line that names `name` (lowercase hex). */
  sumOf(name: string): string {
    for (let line = this.#line(); line !== undefined; line = this.#line()) {
      const match = SUMS_LINE.exec(line);
      if (match?.[2] === name) return match[1]!;
    }
    throw new SumsChangedError(name);
  }

  close(): void {
    closeSync(this.#fd);
  }

  /** The next line, undefined at the end of the file; a line too long to name a file is given as an empty one. */
  #line(): string | undefined {
    for (;;) {
      const newline = this.#bytes.indexOf(0x0a);
      if (newline !== -1) {
        const line = this.#bytes.subarray(0, newline);
        this.#bytes = this.#bytes.subarray(newline + 1);
        return line.length > MAX_LINE_BYTES ? '' : line.toString('utf8');
      }
      if (this.#ended) {
        if (this.#bytes.length === 0) return undefined;
        const last = this.#bytes;
        this.#bytes = Buffer.alloc(0);
        return last.length > MAX_LINE_BYTES ? '' : last.toString('utf8');
      }
      const read = readSync(this.#fd, this.#chunk, 0, CHUNK_BYTES, null);
      if (read === 0) this.#ended = true;
      // A line that goes on past MAX_LINE_BYTES is kept only as its start: it names no file whatever follows.
      const carry = this.#bytes.length > MAX_LINE_BYTES ? this.#bytes.subarray(0, MAX_LINE_BYTES + 1) : this.#bytes;
      this.#bytes = Buffer.concat([carry, this.#chunk.subarray(0, read)]);
    }
  }
}
