/**
 * The regular files of the tree verify checks, and the SHA-256 that SHA256SUMS gives each. At 202,951 documents a
 * snapshot holds some 240,000 files: kept as a Map of names and a Map of names to hex checksums (each line of
 * SHA256SUMS kept whole behind its two slices), they were two thirds of verify's memory. Here the names are packed
 * in one buffer (packed-names.ts; in the order of `byCodeUnits`, which is the order verify checks them in), found
 * through an open-addressing table of their numbers; each checksum is 32 bytes of another buffer, until verify finds
 * that SHA256SUMS lists the files in order and reads them again as it checks (sums-cursor.ts). Memory is less
 * than the size of the names and checksums themselves, outside the JavaScript heap.
 *
 * Paths SHA256SUMS lists that are in the tree but are not regular files (links, pipes: verify reports them and never
 * opens them) are few, and kept in a Map.
 */
import type { SumsStore } from '../format/read-sums.js';
import { PackedNames } from './packed-names.js';
import { textHash } from './text-hash.js';

const SHA256_BYTES = 32;

export class FileIndex implements SumsStore {
  readonly #names: PackedNames;
  /** Slots of the names by hash, each the name's number + 1 (0: empty); a power of two, at least twice the names. */
  readonly #slots: Uint32Array;
  /** The checksum of file `i` at `i * 32`, when `#listed[i]`; none once forgotten. */
  #sums: Buffer | undefined;
  readonly #listed: Uint8Array;
  /** The number of the file SHA256SUMS listed last, and whether each came after the one before. */
  #lastListed = -1;
  #listedInOrder = true;
  /** Listed paths that are not regular files of the tree, with their checksums. */
  readonly #others = new Map<string, string>();

  /** The index of `names`, which must be sorted by `byCodeUnits` and distinct. */
  constructor(names: readonly string[]) {
    this.#names = new PackedNames(names);
    this.#slots = new Uint32Array(2 ** Math.ceil(Math.log2(Math.max(2, names.length * 2))));
    const mask = this.#slots.length - 1;
    for (let i = 0; i < names.length; i += 1) {
      let slot = textHash(names[i]!) & mask;
      while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
      this.#slots[slot] = i + 1;
    }
    this.#sums = Buffer.alloc(names.length * SHA256_BYTES);
    this.#listed = new Uint8Array(names.length);
  }

  /** How many files. */
  get size(): number {
    return this.#listed.length;
  }

  /** The name of file `i` (0 ≤ i < size), in order. */
  name(i: number): string {
    return this.#names.at(i);
  }

  /** The number of the file named `name`, or -1. */
  indexOf(name: string): number {
    const mask = this.#slots.length - 1;
    for (let slot = textHash(name) & mask; this.#slots[slot] !== 0; slot = (slot + 1) & mask) {
      const i = this.#slots[slot]! - 1;
      if (this.#names.is(i, name)) return i;
    }
    return -1;
  }

  /** Whether `name` is a regular file of the tree. */
  isFile(name: string): boolean {
    return this.indexOf(name) !== -1;
  }

  /** Whether SHA256SUMS lists `name` (a file of the tree, or one of the other paths readSums was told to keep). */
  has(name: string): boolean {
    const i = this.indexOf(name);
    return i === -1 ? this.#others.has(name) : this.#listed[i] === 1;
  }

  /** Keeps the checksum SHA256SUMS gives `name` (64 lowercase hex digits, as readSums accepts them). */
  set(name: string, sha256: string): this {
    const i = this.indexOf(name);
    if (i === -1) {
      this.#others.set(name, sha256);
    } else {
      this.#sums?.write(sha256, i * SHA256_BYTES, SHA256_BYTES, 'hex');
      this.#listed[i] = 1;
      if (i < this.#lastListed) this.#listedInOrder = false;
      this.#lastListed = i;
    }
    return this;
  }

  /** Whether SHA256SUMS lists file `i`. */
  isListed(i: number): boolean {
    return this.#listed[i] === 1;
  }

  /** Whether SHA256SUMS listed the files in their order (as crawl writes it). */
  get listedInOrder(): boolean {
    return this.#listedInOrder;
  }

  /** Drops the checksums kept (then they are read again: sums-cursor.ts). */
  forgetSums(): void {
    this.#sums = undefined;
  }

  /** The checksum SHA256SUMS gives file `i` (lowercase hex); undefined when it does not list it or it was forgotten. */
  sumOf(i: number): string | undefined {
    if (this.#listed[i] !== 1) return undefined;
    return this.#sums?.toString('hex', i * SHA256_BYTES, (i + 1) * SHA256_BYTES);
  }
}
