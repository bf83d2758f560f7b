/**
 * The catalogue's record pages verify has checked, by the record each is for: recordPageProblem
 * (format/catalogue-names.ts) reads and writes them by record (SeenPages). There is a page per record: kept as a Map
 * of the records' keys (`["Unit","7"]`) to page numbers, they would be megabytes of heap held to verify's end. Here
 * each page is two numbers in a table outside the heap: a 32-bit hash of its record's key and its number in the index
 * of the tree's files. Which record a page is for is read again from the page when a key's hash matches (once per
 * record with a second page, and about once per 25,000 records where two keys share a hash), so the answers are exact.
 */
import type { SeenPages } from '../format/catalogue-names.js';
import type { FileIndex } from './file-index.js';
import { textHash } from './text-hash.js';

/** Slots the table starts with (two numbers each); it doubles when half full. */
const FIRST_SLOTS = 1024;

export class RecordPages implements SeenPages {
  /** Slot `s`: the hash of a record's key at `2s`, the number of its page in `files` + 1 at `2s + 1` (0: empty). */
  #slots = new Uint32Array(FIRST_SLOTS * 2);
  #count = 0;
  /** Pages that are not files of the tree (none, as verify checks only those): kept as they are. */
  readonly #others = new Map<string, string>();

  /**
   * `recordOf` reads which record the page `file` (a file of `files` kept here before) is for, as `set` was told:
   * null if it no longer says.
   */
  constructor(
    private readonly files: FileIndex,
    private readonly recordOf: (file: string) => string | null,
  ) {}

  get(record: string): string | undefined {
    const hash = textHash(record);
    const slots = this.#slots;
    const mask = slots.length / 2 - 1;
    for (let slot = hash & mask; slots[2 * slot + 1] !== 0; slot = (slot + 1) & mask) {
      if (slots[2 * slot] !== hash) continue;
      const file = this.files.name(slots[2 * slot + 1]! - 1);
      if (this.recordOf(file) === record) return file;
    }
    return this.#others.get(record);
  }

  /** Keeps `file` as the page of `record`, which has none yet (recordPageProblem asks `get` first). */
  set(record: string, file: string): this {
    const page = this.files.indexOf(file);
    if (page === -1) {
      this.#others.set(record, file);
      return this;
    }
    if ((this.#count + 1) * 2 > this.#slots.length / 2) this.#grow();
    this.#place(textHash(record), page + 1);
    this.#count += 1;
    return this;
  }

  #place(hash: number, entry: number): void {
    const slots = this.#slots;
    const mask = slots.length / 2 - 1;
    let slot = hash & mask;
    while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
    slots[2 * slot] = hash;
    slots[2 * slot + 1] = entry;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Uint32Array(old.length * 2);
    for (let slot = 0; slot < old.length / 2; slot += 1) {
      if (old[2 * slot + 1] !== 0) this.#place(old[2 * slot]!, old[2 * slot + 1]!);
    }
  }
}
