/**
 * The catalogue's record pages verify has checked, by the record each is for: recordPageProblem (catalogue/names.ts)
 * reads and writes them by record (SeenPages). There is a page per record (38,500 at 202,951 documents), so each page's
 * path is kept as its number in the index of the tree's files rather than as a string of its own (about 4 MB less).
 */
import type { SeenPages } from '../catalogue/names.js';
import type { FileIndex } from './file-index.js';

export class RecordPages implements SeenPages {
  /** Record → the number of its page in `files`. */
  readonly #pages = new Map<string, number>();
  /** Pages that are not files of the tree (none, as verify checks only those): kept as they are. */
  readonly #others = new Map<string, string>();

  constructor(private readonly files: FileIndex) {}

  get(record: string): string | undefined {
    const page = this.#pages.get(record);
    return page === undefined ? this.#others.get(record) : this.files.name(page);
  }

  set(record: string, file: string): this {
    const page = this.files.indexOf(file);
    if (page === -1) this.#others.set(record, file);
    else this.#pages.set(record, page);
    return this;
  }
}
