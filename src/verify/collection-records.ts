/**
 * Findings in a complete collection file, told where the crawl saw them. The bare collection URL holds every
 * page's records in one list (built in finalize), so a mistake the crawl found at `/data/1` of page 2 sits at
 * `/data/<length of page 1 + 1>` there. verify validates both files; a finding in the complete file is the page's
 * finding, moved, and is checked against the report under the page's URL and pointer.
 */
import { listEntries } from '../format/records.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import type { Layout } from '../format/layout.js';
import { MANIFEST_PATH } from '../format/manifest.js';
import { plural } from '../util/plural.js';
import type { ApiLocation } from '../url/api-location.js';
import type { Finding } from '../validate/finding.js';

const IN_DATA = /^\/data\/(\d+)(\/.*)?$/;

/** What the manifest says of a collection, and what verify counts of it in the tree. */
interface CollectionCounts {
  pages: number;
  records: number;
  documents: number;
}

export class CollectionRecords {
  /** Records on each stored page: collection → page number → length of its `data` list. */
  readonly #pages = new Map<string, Map<number, number>>();
  /** Findings of complete collection files, by collection, until every page has been read. */
  readonly #held = new Map<string, Finding[]>();
  /** Documents stored of each collection (its list pages, records, relationship and related documents). */
  readonly #documents = new Map<string, number>();

  /** `said`: the manifest's counts of each collection, which the stored documents must add up to. */
  constructor(
    private readonly layout: Layout,
    private readonly said: Readonly<Record<string, CollectionCounts>>,
  ) {}

  /** Notes a stored document of the API (the complete collection files aside): a list page's records, and counts. */
  addDocument(location: ApiLocation, json: unknown): void {
    if (location.kind === 'root' || location.kind === 'other') return;
    this.#documents.set(location.collection, (this.#documents.get(location.collection) ?? 0) + 1);
    if (location.kind !== 'list') return;
    const pages = this.#pages.get(location.collection) ?? new Map<number, number>();
    // Its entries, records or not, as the crawl counted them; a `data` that is no list holds none (records.ts).
    pages.set(location.page, listEntries(json).length);
    this.#pages.set(location.collection, pages);
  }

  /** Holds the findings of the complete file of `collection`, to be placed once every page is known. */
  hold(collection: string, findings: readonly Finding[]): void {
    this.#held.set(collection, [...(this.#held.get(collection) ?? []), ...findings]);
  }

  /**
   * Where the documents stored do not add up to what the manifest says of a collection (its list pages, the records
   * on them and its documents, as the crawl counted them): a sentence for each, in collection order.
   */
  countProblems(): string[] {
    const names = [...new Set([...Object.keys(this.said), ...this.#documents.keys()])].sort(byCodeUnits);
    const problems: string[] = [];
    for (const name of names) {
      const pages = this.#pages.get(name) ?? new Map<number, number>();
      const held: CollectionCounts = {
        pages: pages.size,
        records: [...pages.values()].reduce((sum, length) => sum + length, 0),
        documents: this.#documents.get(name) ?? 0,
      };
      const said = Object.hasOwn(this.said, name) ? this.said[name]! : undefined;
      if (said?.pages === held.pages && said.records === held.records && said.documents === held.documents) continue;
      const holds =
        `${plural(held.pages, 'list page')} with ${plural(held.records, 'record')}, ` +
        `in ${plural(held.documents, 'document')}`;
      problems.push(
        said === undefined
          ? `${MANIFEST_PATH} does not name collection ${JSON.stringify(name)}, of which the snapshot holds ${holds}.`
          : `${MANIFEST_PATH} says collection ${JSON.stringify(name)} has ${plural(said.pages, 'list page')} with ` +
              `${plural(said.records, 'record')}, in ${plural(said.documents, 'document')}; the snapshot holds ` +
              `${holds}.`,
      );
    }
    return problems;
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
        const url = this.layout.pageOf(this.layout.collectionUrl(collection), page)?.url ?? finding.url;
        return { ...finding, url, pointer: `/data/${index}${match[2] ?? ''}` };
      }
      index -= length;
    }
    return finding;
  }
}
