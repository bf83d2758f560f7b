/**
 * The set of URLs a crawl has seen, the largest structure a crawl keeps (one entry per document: 200,000 at the
 * memory target). As a Set of strings it took about 140 bytes an entry on the JavaScript heap, where the garbage
 * collector walks every one at every full collection. Here a URL below the root is kept as the bytes of its part
 * after the root (canonical URLs are ASCII, one byte a character) in buffers outside the heap, found through an
 * open-addressing table of offsets and hashes: about 70 bytes an entry, none of them on the heap. The set is
 * exact: a hash only narrows the search, and the bytes are compared. Other URLs (another origin, the root without
 * its slash, a character beyond Latin-1, and any added once the byte store is full) go to an ordinary Set.
 */

/** Bytes per piece of the byte store: entries are appended, and a piece is never moved once full. */
const PIECE = 1 << 20;
/** An entry longer than this (in characters after the root) is kept in the ordinary Set. */
const MAX_STORED = 0xffff;
/**
 * Positions are kept in 32 bits (with 1 added): the byte store ends before 4 GB, and the ordinary Set takes the URLs
 * added after that (those stored before stay where they are).
 */
const MAX_POSITION = 2 ** 32 - PIECE - 1;

/** FNV-1a over the characters of `text` from `start`, as a 32-bit integer. */
function hashOf(text: string, start: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash | 0;
}

export class UrlSet implements Iterable<string> {
  readonly #prefix: string;
  readonly #pieces: Buffer[] = [Buffer.allocUnsafe(PIECE)];
  /** Bytes used of each full piece. */
  readonly #ends: number[] = [];
  /** Bytes used of the last piece. */
  #used = 0;
  /** Per slot: 0 when empty, else 1 + the entry's position (piece × PIECE + offset). */
  #slots = new Uint32Array(1 << 12);
  #hashes = new Int32Array(1 << 12);
  #stored = 0;
  readonly #others = new Set<string>();
  /** Bytes the byte store may reach before the ordinary Set takes new URLs. */
  readonly #capacity: number;

  /**
   * URLs that start with `prefix` (the crawl's root) are kept compactly, in a byte store of at most `capacity` bytes
   * (rounded up to a megabyte; the default is what 32-bit positions allow).
   */
  constructor(prefix: string, urls: Iterable<string> = [], capacity = MAX_POSITION) {
    this.#prefix = prefix;
    this.#capacity = Math.min(capacity, MAX_POSITION);
    for (const url of urls) this.add(url);
  }

  get size(): number {
    return this.#stored + this.#others.size;
  }

  has(url: string): boolean {
    if (this.#storable(url) && this.#find(url, hashOf(url, this.#prefix.length)) >= 0) return true;
    return this.#others.size > 0 && this.#others.has(url);
  }

  add(url: string): this {
    if (this.#storable(url)) {
      const hash = hashOf(url, this.#prefix.length);
      const slot = this.#find(url, hash);
      if (slot >= 0) return this;
      if (!this.#full()) {
        this.#slots[-slot - 1] = 1 + this.#append(url);
        this.#hashes[-slot - 1] = hash;
        this.#stored += 1;
        // At most half full, so that a search ends soon at an empty slot.
        if (this.#stored * 2 > this.#slots.length) this.#grow();
        return this;
      }
    }
    this.#others.add(url);
    return this;
  }

  /** Every URL, those kept compactly in the order they were added, then the others. */
  *[Symbol.iterator](): Iterator<string> {
    const prefix = this.#prefix;
    for (const [index, piece] of this.#pieces.entries()) {
      const end = this.#ends[index] ?? this.#used;
      for (let at = 0; at < end;) {
        const length = piece.readUInt16LE(at);
        yield prefix + piece.toString('latin1', at + 2, at + 2 + length);
        at += 2 + length;
      }
    }
    yield* this.#others;
  }

  /** Whether `url` can be in the byte store: below the prefix, Latin-1 only, not too long. */
  #storable(url: string): boolean {
    if (!url.startsWith(this.#prefix) || url.length - this.#prefix.length > MAX_STORED) return false;
    for (let i = this.#prefix.length; i < url.length; i += 1) if (url.charCodeAt(i) > 0xff) return false;
    return true;
  }

  /** Whether the byte store takes no more URLs. */
  #full(): boolean {
    return this.#pieces.length * PIECE >= this.#capacity;
  }

  /** The slot that holds `url` (≥ 0), or −1 − the empty slot where it would go. */
  #find(url: string, hash: number): number {
    const mask = this.#slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.#slots[slot]!;
      if (entry === 0) return -slot - 1;
      if (this.#hashes[slot] === hash && this.#equals(entry - 1, url)) return slot;
    }
  }

  #equals(position: number, url: string): boolean {
    const piece = this.#pieces[Math.floor(position / PIECE)]!;
    let at = position % PIECE;
    const start = this.#prefix.length;
    if (piece.readUInt16LE(at) !== url.length - start) return false;
    at += 2;
    for (let i = start; i < url.length; i += 1, at += 1) if (piece[at] !== url.charCodeAt(i)) return false;
    return true;
  }

  /** Stores the part of `url` after the prefix; its position. */
  #append(url: string): number {
    const length = url.length - this.#prefix.length;
    if (this.#used + 2 + length > PIECE) {
      this.#ends.push(this.#used);
      this.#pieces.push(Buffer.allocUnsafe(PIECE));
      this.#used = 0;
    }
    const index = this.#pieces.length - 1;
    const piece = this.#pieces[index]!;
    const position = index * PIECE + this.#used;
    piece.writeUInt16LE(length, this.#used);
    piece.write(url.slice(this.#prefix.length), this.#used + 2, 'latin1');
    this.#used += 2 + length;
    return position;
  }

  #grow(): void {
    const slots = this.#slots;
    const hashes = this.#hashes;
    this.#slots = new Uint32Array(slots.length * 2);
    this.#hashes = new Int32Array(slots.length * 2);
    const mask = this.#slots.length - 1;
    for (let old = 0; old < slots.length; old += 1) {
      if (slots[old] === 0) continue;
      let slot = hashes[old]! & mask;
      while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
      this.#slots[slot] = slots[old]!;
      this.#hashes[slot] = hashes[old]!;
    }
  }
}
