/**
 * A list of URLs kept as bytes outside the JavaScript heap: a derived crawl's plan holds every record, relationship
 * and related URL below the lists (200,000 at the memory target), which as strings cost about 150 bytes each on the
 * heap. Here a URL under the root is kept as the UTF-8 of its part after the root, found by its index; one elsewhere
 * (or with a surrogate, which UTF-8 might not give back as it was) is kept as a string. `get` makes the string again
 * when it is wanted.
 */

/** Bytes per piece of the byte store: a piece is never moved once full. */
const PIECE = 1 << 20;

export class UrlList {
  readonly #prefix: string;
  readonly #pieces: Buffer[] = [];
  #used = PIECE;
  /** Per URL: its piece × PIECE + offset, and its length in bytes (-1: kept in `#others`). */
  #starts = new Float64Array(64);
  #lengths = new Int32Array(64);
  #length = 0;
  readonly #others = new Map<number, string>();

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  get length(): number {
    return this.#length;
  }

  /** Keeps `url`; its index. */
  push(url: string): number {
    const index = this.#length++;
    if (index === this.#starts.length) this.#grow();
    const bytes = url.startsWith(this.#prefix) ? Buffer.byteLength(url) - this.#prefix.length : PIECE;
    if (bytes >= PIECE || /[\ud800-\udfff]/.test(url)) {
      this.#others.set(index, url);
      this.#lengths[index] = -1;
      return index;
    }
    if (this.#used + bytes > PIECE) {
      this.#pieces.push(Buffer.allocUnsafe(PIECE));
      this.#used = 0;
    }
    const piece = this.#pieces.length - 1;
    this.#pieces[piece]!.write(url.slice(this.#prefix.length), this.#used, 'utf8');
    this.#starts[index] = piece * PIECE + this.#used;
    this.#lengths[index] = bytes;
    this.#used += bytes;
    return index;
  }

  get(index: number): string {
    const length = this.#lengths[index]!;
    if (length < 0) return this.#others.get(index)!;
    const start = this.#starts[index]!;
    const at = start % PIECE;
    return this.#prefix + this.#pieces[Math.floor(start / PIECE)]!.toString('utf8', at, at + length);
  }

  /** `indices` in the code-unit order of their URLs. */
  sort(indices: number[]): number[] {
    const urls = indices.map((index) => ({ index, url: this.get(index) }));
    urls.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    return urls.map(({ index }) => index);
  }

  #grow(): void {
    const starts = new Float64Array(this.#starts.length * 2);
    starts.set(this.#starts);
    this.#starts = starts;
    const lengths = new Int32Array(this.#lengths.length * 2);
    lengths.set(this.#lengths);
    this.#lengths = lengths;
  }
}
