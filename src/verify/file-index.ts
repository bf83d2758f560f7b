/**
 * The regular files of the tree verify checks, and the SHA-256 that SHA256SUMS gives each. At 202,951 documents a
 * snapshot holds some 240,000 files: kept as a Map of names and a Map of names to hex checksums (each line of
 * SHA256SUMS kept whole behind its two slices), they were two thirds of verify's memory. Here the names sit in one
 * buffer (UTF-8, in the order of `byCodeUnits`, which is the order verify checks them in) and are found by binary
 * search; each checksum is 32 bytes of another buffer. Memory is about the size of the names and checksums
 * themselves, outside the JavaScript heap.
 *
 * Paths SHA256SUMS lists that are in the tree but are not regular files (links, pipes: verify reports them and never
 * opens them) are few, and kept in a Map.
 */
import type { SumsStore } from '../format/read-snapshot.js';

const SHA256_BYTES = 32;

/** The first lead byte of a UTF-8 sequence for U+E000–U+FFFF, and of a sequence beyond U+FFFF. */
const LEAD_E000 = 0xee;
const LEAD_ASTRAL = 0xf0;

/**
 * `a` against `b` (UTF-8 bytes) in the order of `byCodeUnits`. Byte order is code point order; the two differ only
 * where one string has a character beyond U+FFFF (a surrogate pair, U+D800–U+DFFF in code units) and the other one in
 * U+E000–U+FFFF at the same place.
 */
function compareUtf8(a: Buffer, aStart: number, aEnd: number, b: Buffer, bStart: number, bEnd: number): number {
  const length = Math.min(aEnd - aStart, bEnd - bStart);
  for (let i = 0; i < length; i += 1) {
    const x = a[aStart + i]!;
    const y = b[bStart + i]!;
    if (x === y) continue;
    if (x >= LEAD_ASTRAL && y >= LEAD_E000 && y < LEAD_ASTRAL) return -1;
    if (y >= LEAD_ASTRAL && x >= LEAD_E000 && x < LEAD_ASTRAL) return 1;
    return x - y;
  }
  return aEnd - aStart - (bEnd - bStart);
}

export class FileIndex implements SumsStore {
  /** The names, one after the other. */
  readonly #names: Buffer;
  /** Where each name starts in `#names`, and after the last, where it ends. */
  readonly #starts: Uint32Array;
  /** Whether a name holds a byte from which byte order and code unit order may differ (see compareUtf8). */
  readonly #highBytes: boolean;
  /** The checksum of file `i` at `i * 32`, when `#listed[i]`. */
  readonly #sums: Buffer;
  readonly #listed: Uint8Array;
  /** Listed paths that are not regular files of the tree, with their checksums. */
  readonly #others = new Map<string, string>();

  /** The index of `names`, which must be sorted by `byCodeUnits` and distinct. */
  constructor(names: readonly string[]) {
    this.#starts = new Uint32Array(names.length + 1);
    let bytes = 0;
    for (let i = 0; i < names.length; i += 1) {
      this.#starts[i] = bytes;
      bytes += Buffer.byteLength(names[i]!, 'utf8');
    }
    this.#starts[names.length] = bytes;
    this.#names = Buffer.allocUnsafe(bytes);
    for (let i = 0; i < names.length; i += 1) this.#names.write(names[i]!, this.#starts[i]!, 'utf8');
    this.#highBytes = this.#names.some((byte) => byte >= LEAD_E000);
    this.#sums = Buffer.alloc(names.length * SHA256_BYTES);
    this.#listed = new Uint8Array(names.length);
  }

  /** How many files. */
  get size(): number {
    return this.#listed.length;
  }

  /** The name of file `i` (0 ≤ i < size), in order. */
  name(i: number): string {
    return this.#names.toString('utf8', this.#starts[i], this.#starts[i + 1]);
  }

  /** The index of the file named `name`, or -1. */
  indexOf(name: string): number {
    const query = Buffer.from(name, 'utf8');
    const names = this.#names;
    let low = 0;
    let high = this.size - 1;
    const careful = this.#highBytes || query.some((byte) => byte >= LEAD_E000);
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const start = this.#starts[middle]!;
      const end = this.#starts[middle + 1]!;
      const order = careful
        ? compareUtf8(names, start, end, query, 0, query.length)
        : names.compare(query, 0, query.length, start, end);
      if (order === 0) return middle;
      if (order < 0) low = middle + 1;
      else high = middle - 1;
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
      this.#sums.write(sha256, i * SHA256_BYTES, SHA256_BYTES, 'hex');
      this.#listed[i] = 1;
    }
    return this;
  }

  /** The checksum SHA256SUMS gives file `i` (lowercase hex), or undefined when it does not list it. */
  sumOf(i: number): string | undefined {
    if (this.#listed[i] !== 1) return undefined;
    return this.#sums.toString('hex', i * SHA256_BYTES, (i + 1) * SHA256_BYTES);
  }
}
