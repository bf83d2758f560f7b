/**
 * A bounded memo for pure functions of a string. A crawl asks about the same URL many times within a short span (the
 * crawler when it discovers a link, validation, the link rewriter and the layout for every document that names it),
 * and parsing a URL costs far more than a map lookup. Two generations of at most `size` entries each bound the
 * memory whatever the crawl's size: when the young one is full it becomes the old one, and the old one is dropped;
 * an entry found in the old generation moves back to the young one.
 */
export class Memo<V> {
  #young = new Map<string, V>();
  #old = new Map<string, V>();

  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    if (this.#young.size >= this.size) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}
