/**
 * Reads an async stream of chunks as exact byte counts, so the tar reader can ask for "one 512-byte header" or
 * "the next n bytes of this file" without holding more than one chunk in memory.
 */
export class ByteReader {
  private buffer: Buffer = Buffer.alloc(0);
  private offset = 0;
  private ended = false;

  constructor(private readonly source: AsyncIterator<Buffer>) {}

  private get available(): number {
    return this.buffer.length - this.offset;
  }

  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.source.next();
    if (next.done === true) {
      this.ended = true;
      return false;
    }
    const chunk = next.value;
    this.buffer = this.available > 0 ? Buffer.concat([this.buffer.subarray(this.offset), chunk]) : chunk;
    this.offset = 0;
    return true;
  }

  /** Exactly `n` bytes; null at a clean end of the stream, an error when it ends after fewer than `n`. */
  async exactly(n: number): Promise<Buffer | null> {
    while (this.available < n) {
      if (!(await this.fill())) {
        if (this.available === 0) return null;
        throw new RangeError(`the stream ended ${this.available} bytes into a ${n}-byte read`);
      }
    }
    const bytes = this.buffer.subarray(this.offset, this.offset + n);
    this.offset += n;
    return bytes;
  }

  /** The next `n` bytes as they arrive; an error when the stream ends first. */
  async *chunks(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.available === 0 && !(await this.fill())) {
        throw new RangeError(`the stream ended ${left} bytes before the end of an entry`);
      }
      const take = Math.min(left, this.available);
      yield this.buffer.subarray(this.offset, this.offset + take);
      this.offset += take;
      left -= take;
    }
  }

  async skip(n: number): Promise<void> {
    for await (const _chunk of this.chunks(n)) {
      // discarded
    }
  }

  /**
   * Reads to the end, so that the source can check what it checks at the end (gzip's CRC and length), but no more
   * than `limit` bytes: false, with the rest never read, when the stream goes on past that.
   */
  async drain(limit: number): Promise<boolean> {
    let read = this.available;
    this.offset = this.buffer.length;
    while (read <= limit) {
      if (!(await this.fill())) return true;
      read += this.available;
      this.offset = this.buffer.length;
    }
    return false;
  }
}
