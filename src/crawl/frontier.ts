/**
 * The URLs waiting to be fetched: strings in arrays, not a task and a promise per URL. Two queues, each first in,
 * first out: the pages of lists go first. A list is a chain (page n names page n + 1), so a page that waits behind
 * the thousands of records its predecessors listed holds back the rest of its list, and at the end of a crawl the
 * last pages of the lists would be fetched one after another with the connections idle.
 */
class Queue {
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

export class Frontier {
  readonly #pages = new Queue();
  readonly #others = new Queue();

  /** `isListPage` tells the pages of lists (collections, and related lists the source paginates). */
  constructor(private readonly isListPage: (url: string) => boolean = () => false) {}

  get size(): number {
    return this.#pages.size + this.#others.size;
  }

  push(url: string): void {
    (this.isListPage(url) ? this.#pages : this.#others).push(url);
  }

  /** The next URL to fetch, and whether it is a page of a list; only called when size > 0. */
  shift(): { url: string; listPage: boolean } {
    return this.#pages.size > 0
      ? { url: this.#pages.shift(), listPage: true }
      : { url: this.#others.shift(), listPage: false };
  }
}
