/**
 * A list of URLs kept as bytes outside the JavaScript heap: a derived crawl's plan holds every record, relationship
 * and related URL below the lists (200,000 at the memory target), which as strings cost about 150 bytes each on the
 * heap. Here a URL is kept as the UTF-8 of its part after a prefix (such as its collection's URL, which all the URLs
 * of a group share), found by its index; one with a surrogate (which UTF-8 might not give back as it was) is kept as
 * a string. `get` makes the string again when it is wanted.
 */
import { grown } from '../util/typed-array.js';

/** Bytes per piece of the byte store: a piece is never moved once full. */
const PIECE = 1 << 20;

export class UrlList {
  /** The prefixes, and each one's number, by text. */
  readonly #prefixes: string[] = [''];
  readonly #prefixNumbers = new Map<string, number>([['', 0]]);
  readonly #pieces: Buffer[] = [];
  #used = PIECE;
  /** Per URL: its piece × PIECE + offset, and its length in bytes (-1: kept in `#others`). */
  #starts = new Float64Array(64);
  #lengths = new Int32Array(64);
  /** Per URL: the number of its prefix. */
  #prefixOf = new Uint16Array(64);
  #length = 0;
  readonly #others = new Map<number, string>();

  get length(): number {
    return this.#length;
  }

  /** Keeps `url`, without `prefix` when it starts with it; its index. */
  push(url: string, prefix: string): number {
    const index = this.#length++;
    if (index === this.#starts.length) this.#grow();
    const number = url.startsWith(prefix) ? this.#prefixNumber(prefix) : 0;
    const rest = url.slice(this.#prefixes[number]!.length);
    const bytes = Buffer.byteLength(rest);
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
    this.#pieces[piece]!.write(rest, this.#used, 'utf8');
    this.#prefixOf[index] = number;
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
    const prefix = this.#prefixes[this.#prefixOf[index]!]!;
    return prefix + this.#pieces[Math.floor(start / PIECE)]!.toString('utf8', at, at + length);
  }

  /** `indices` in the code-unit order of their URLs. */
  sort(indices: number[]): number[] {
    const urls = indices.map((index) => ({ index, url: this.get(index) }));
    urls.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    return urls.map(({ index }) => index);
  }

  #prefixNumber(prefix: string): number {
    let number = this.#prefixNumbers.get(prefix);
    if (number === undefined) {
      number = this.#prefixes.length;
      // Past 65,536 prefixes, URLs are kept whole: the numbers are 16 bits.
      if (number > 0xffff) return 0;
      this.#prefixes.push(prefix);
      this.#prefixNumbers.set(prefix, number);
    }
    return number;
  }

  #grow(): void {
    this.#starts = grown(this.#starts);
    this.#lengths = grown(this.#lengths);
    this.#prefixOf = grown(this.#prefixOf);
  }
}
