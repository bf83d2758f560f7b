/**
 * The checksums of SHA256SUMS read a second time, in step with verify's check of the files, instead of kept in
 * memory: when SHA256SUMS lists the tree's files in the order verify checks them (`byCodeUnits`, as crawl writes
 * it), the checksum of each file is that of the next line naming it. Memory holds one chunk of the file
 * (fileLines), a small one, as it is held to the end of the check. Lines that name no file verify checks are passed
 * over; readSums has reported what was wrong with them.
 */
import { closeSync } from 'node:fs';
import { sumsLine } from '../store/sums.js';
import { fileLines, openSums } from '../format/read-sums.js';

/** A chunk of SHA256SUMS: some 650 lines. */
const CHUNK_BYTES = 64 << 10;

/** SHA256SUMS no longer lists a file it listed when verify first read it. */
export class SumsChangedError extends Error {}

export class SumsCursor {
  readonly #fd: number;
  readonly #lines: Generator<string | null>;

  /** SHA256SUMS of the snapshot in `dir`, opened as readSums opens it. */
  constructor(dir: string) {
    this.#fd = openSums(dir);
    this.#lines = fileLines(this.#fd, CHUNK_BYTES);
  }

  /** The checksum of the next line that names `name` (lowercase hex). */
  sumOf(name: string): string {
    // Not for-of, which would end the generator on return.
    for (let line = this.#lines.next(); line.done !== true; line = this.#lines.next()) {
      const listed = line.value === null ? null : sumsLine(line.value);
      if (listed?.file === name) return listed.sha256;
    }
    throw new SumsChangedError(name);
  }

  close(): void {
    this.#lines.return(undefined);
    closeSync(this.#fd);
  }
}
