/**
 * The list entries' JSON texts, kept outside the JavaScript heap. A derived crawl keeps one entry per record
 * (38,500 of about a kilobyte at 200,000 documents): as strings they were the largest thing on the heap during the
 * derive phase, and the heap's room to grow made them count about half as much again in the resident size. Given a
 * file (a scratch file in the staging directory), the texts are appended to it as UTF-8 and read back when a document
 * is derived from them (one `pread` each); without one, they are kept as strings (tests, small runs).
 *
 * A text that UTF-8 might not carry exactly (one with a surrogate: a lone one, which `stringifyJson` can write from an
 * escaped source string, would come back as U+FFFD) stays in memory as it is, so every text comes back the same code
 * units it went in as.
 */
import { closeSync, openSync, readSync, rmSync } from 'node:fs';
import { grown } from '../util/typed-array.js';
import { writeFully } from '../util/write-fully.js';

/** Bytes gathered before they are written: one system call for a few dozen entries. */
const PENDING_BYTES = 64 * 1024;
/** Any surrogate code unit; paired ones would survive UTF-8, but they are rare enough to keep in memory too. */
const SURROGATE = /[\ud800-\udfff]/;

export class EntryTexts {
  readonly #file: string | undefined;
  #fd: number | undefined;
  /** Per text: where its UTF-8 starts in the file, and how many bytes it has; -1 for one kept in memory. */
  #offsets = new Float64Array(1024);
  #lengths = new Int32Array(1024);
  #count = 0;
  /** Texts kept as strings, by handle: all of them without a file, else those UTF-8 would change. */
  readonly #strings = new Map<number, string>();
  /** Bytes in the file, and bytes gathered behind them not written yet. */
  #written = 0;
  #pending = Buffer.allocUnsafe(PENDING_BYTES);
  #pendingUsed = 0;
  #read = Buffer.allocUnsafe(4096);

  /** Texts go to `file` (created or emptied; removed by `close`), or stay in memory when there is none. */
  constructor(file?: string) {
    this.#file = file;
    if (file !== undefined) this.#fd = openSync(file, 'w+', 0o600);
  }

  /** Keeps `text`; the handle `get` gives it back by. */
  add(text: string): number {
    const handle = this.#count++;
    if (handle === this.#offsets.length) this.#grow();
    if (this.#fd === undefined || SURROGATE.test(text)) {
      this.#strings.set(handle, text);
      this.#lengths[handle] = -1;
      return handle;
    }
    const bytes = Buffer.byteLength(text);
    this.#offsets[handle] = this.#written + this.#pendingUsed;
    this.#lengths[handle] = bytes;
    if (this.#pendingUsed + bytes > PENDING_BYTES) this.#flush();
    if (bytes > PENDING_BYTES) {
      this.#writeAll(Buffer.from(text));
    } else {
      this.#pending.write(text, this.#pendingUsed, 'utf8');
      this.#pendingUsed += bytes;
    }
    return handle;
  }

  get(handle: number): string {
    const length = this.#lengths[handle]!;
    if (length < 0 || this.#fd === undefined) return this.#strings.get(handle)!;
    const offset = this.#offsets[handle]!;
    if (offset >= this.#written) {
      const start = offset - this.#written;
      return this.#pending.toString('utf8', start, start + length);
    }
    if (this.#read.length < length) this.#read = Buffer.allocUnsafe(length);
    for (let done = 0; done < length;) {
      const read = readSync(this.#fd, this.#read, done, length - done, offset + done);
      if (read === 0) throw new Error(`${this.#file} ended before the entry at byte ${offset}`);
      done += read;
    }
    return this.#read.toString('utf8', 0, length);
  }

  /** Closes and removes the file; the texts are gone. */
  close(): void {
    if (this.#fd !== undefined) {
      closeSync(this.#fd);
      this.#fd = undefined;
      rmSync(this.#file!, { force: true });
    }
    this.#strings.clear();
    this.#count = 0;
    this.#offsets = new Float64Array(0);
    this.#lengths = new Int32Array(0);
  }

  #grow(): void {
    this.#offsets = grown(this.#offsets);
    this.#lengths = grown(this.#lengths);
  }

  #flush(): void {
    if (this.#pendingUsed === 0) return;
    const used = this.#pendingUsed;
    this.#pendingUsed = 0;
    this.#writeAll(this.#pending.subarray(0, used));
  }

  #writeAll(bytes: Buffer): void {
    writeFully(this.#fd!, bytes, bytes.length, this.#written);
    this.#written += bytes.length;
  }
}
