/**
 * Findings in a complete collection file, told where the crawl saw them. The bare collection URL holds every
 * page's records in one list (built in finalize), so a mistake the crawl found at `/data/1` of page 2 sits at
 * `/data/<length of page 1 + 1>` there. verify validates both files; a finding in the complete file is the page's
 * finding, moved, and is checked against the report under the page's URL and pointer.
 */
import type { Layout } from '../format/layout.js';
import type { ApiLocation } from '../url/api-location.js';
import type { Finding } from '../validate/finding.js';

const IN_DATA = /^\/data\/(\d+)(\/.*)?$/;

export class CollectionRecords {
  /** Records on each stored page: collection → page number → length of its `data` list. */
  readonly #pages = new Map<string, Map<number, number>>();
  /** Findings of complete collection files, by collection, until every page has been read. */
  readonly #held = new Map<string, Finding[]>();

  constructor(private readonly layout: Layout) {}

  /** Notes a stored list page. */
  addPage(location: ApiLocation, json: unknown): void {
    if (location.kind !== 'list') return;
    const data = (json as { data?: unknown } | null)?.data;
    const pages = this.#pages.get(location.collection) ?? new Map<number, number>();
    pages.set(location.page, Array.isArray(data) ? data.length : 0);
    this.#pages.set(location.collection, pages);
  }

  /** Holds the findings of the complete file of `collection`, to be placed once every page is known. */
  hold(collection: string, findings: readonly Finding[]): void {
    this.#held.set(collection, [...(this.#held.get(collection) ?? []), ...findings]);
  }

  /** The held findings, each record's moved to the page and pointer the crawl saw it at. */
  placed(): Finding[] {
    const placed: Finding[] = [];
    for (const [collection, findings] of this.#held) {
      for (const finding of findings) placed.push(this.#place(collection, finding));
    }
    return placed;
  }

  #place(collection: string, finding: Finding): Finding {
    const match = IN_DATA.exec(finding.pointer);
    if (match === null) return finding;
    let index = Number(match[1]);
    const pages = [...(this.#pages.get(collection) ?? new Map<number, number>())].sort(([a], [b]) => a - b);
    for (const [page, length] of pages) {
      if (index < length) {
        const first = this.layout.collectionUrl(collection);
        const url = page === 1 ? first : `${first}?page%5Bnumber%5D=${page}`;
        return { ...finding, url: this.layout.urls.canonical(url), pointer: `/data/${index}${match[2] ?? ''}` };
      }
      index -= length;
    }
    return finding;
  }
}
