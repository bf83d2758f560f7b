/** A first-in, first-out queue of URLs: strings in an array, not a task and a promise per URL. */
export class Frontier {
  #urls: string[] = [];
  #head = 0;

  get size(): number {
    return this.#urls.length - this.#head;
  }

  push(url: string): void {
    this.#urls.push(url);
  }

  /** The oldest URL; only called when size > 0. */
  shift(): string {
    const url = this.#urls[this.#head]!;
    this.#head += 1;
    // Drop the consumed part now and then, so the array does not keep every URL the crawl ever queued.
    if (this.#head >= 4096 && this.#head * 2 >= this.#urls.length) {
      this.#urls = this.#urls.slice(this.#head);
      this.#head = 0;
    }
    return url;
  }
}
