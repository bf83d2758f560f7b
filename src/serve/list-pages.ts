/**
 * The stored pages of a snapshot's paginated lists, from its file list (scanned once, when a page is first asked
 * for): the pages of every collection, and of every related list the source paginated. The layout stores page n of
 * a list at `<list>/page/<n>/index.html` and reserves the `page` segment for that, so the file list says it all.
 */
import { INDEX_FILE, PAGE_SEGMENT } from '../format/layout.js';

const PAGE_FILE = new RegExp(`^(.+)/${PAGE_SEGMENT}/([1-9][0-9]*)/${INDEX_FILE.replace('.', '\\.')}$`);

export class ListPages {
  #byList: Map<string, number[]> | undefined;

  constructor(private readonly files: () => Iterable<string>) {}

  /** Page numbers stored for the list whose directory is `listDir` (e.g. `sms/cv/api/v1/units`), ascending. */
  numbers(listDir: string): readonly number[] {
    if (this.#byList === undefined) {
      const found = new Map<string, number[]>();
      for (const file of this.files()) {
        const match = PAGE_FILE.exec(file);
        if (match === null) continue;
        const list = found.get(match[1]!) ?? [];
        list.push(Number(match[2]));
        found.set(match[1]!, list);
      }
      for (const list of found.values()) list.sort((a, b) => a - b);
      this.#byList = found;
    }
    return this.#byList.get(listDir) ?? [];
  }
}
