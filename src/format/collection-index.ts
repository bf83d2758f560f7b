/**
 * The bare collection URL of a snapshot holds the complete collection as one page
 * (docs/snapshot-format.md#complete-collections): a client that asks for everything (`page[size]=10000`) or loops
 * `page[number]` up to `meta.pagination.pages` then gets every record, never page 1 repeated. It is built in finalize
 * by streaming the crawled pages, one page in memory at a time.
 */
import { isObject } from '../json/is-object.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { htmlSafeJson } from '../json/html-safe.js';
import { parseJson, stringifyJson } from '../json/parse-json.js';
import type { TreeWriter } from '../store/writer.js';

interface ListPage {
  links?: Record<string, unknown>;
  data: unknown[];
  meta?: { pagination?: Record<string, unknown> } & Record<string, unknown>;
}

/** A JSON object with a `data` list; its `links` and `meta` are rewritten only where they are objects. */
function isListPage(value: unknown): value is ListPage {
  return isObject(value) && Array.isArray(value.data);
}

export interface CollectionIndexInput {
  /** Files of the collection's pages (already link-rewritten), in page order. */
  pageFiles: string[];
  /** The file to write and the link at which the snapshot serves it. */
  file: string;
  selfLink: string;
  mode: 'complete' | 'first-page';
}

/** Writes the collection index; returns the number of records it holds. */
export function writeCollectionIndex(writer: TreeWriter, input: CollectionIndexInput): number {
  // Page files are small and many: one synchronous read each costs less than the thread-pool round trips of an
  // asynchronous one (open, stat, read, close), which left finalize mostly waiting.
  const read = (file: string): unknown => parseJson(readFileSync(path.join(writer.dir, ...file.split('/')), 'utf8'));
  const [firstFile] = input.pageFiles;
  if (firstFile === undefined) return 0;
  const stored = read(firstFile);
  // A first page that is no list (null, an error document, `data` not a list: the report names it) is the
  // collection's as it came: there is no list to complete.
  if (input.mode === 'first-page' || !isListPage(stored)) {
    writer.write(input.file, htmlSafeJson(stringifyJson(stored)));
    return isListPage(stored) ? stored.data.length : 0;
  }
  const first = stored;
  // Later pages may be no lists either: they add no records.
  const recordsOf = (file: string): unknown[] => {
    const page = file === firstFile ? first : read(file);
    return isListPage(page) ? page.data : [];
  };

  // Count first, so meta can precede data in the document as it does in the source.
  let count = 0;
  for (const file of input.pageFiles) count += recordsOf(file).length;
  const head: ListPage = { ...first };
  if (isObject(head.links)) {
    const links: Record<string, unknown> = {};
    for (const key of Object.keys(head.links)) {
      links[key] = key === 'next' || key === 'prev' ? null : input.selfLink;
    }
    head.links = links;
  }
  if (isObject(head.meta) && isObject(head.meta.pagination))
    head.meta = { ...head.meta, pagination: { ...head.meta.pagination, page: 1, pages: 1, count } };
  // The head is written member by member, in its own order, and `data` streamed in its place: no marker string that
  // a source's data could contain, and the bytes JSON.stringify (then htmlSafeJson) would give for the whole document.
  const members = Object.keys(head);
  if (!members.includes('data')) members.push('data');

  function* parts(): Generator<string> {
    yield '{';
    for (const [i, key] of members.entries()) {
      yield `${i === 0 ? '' : ','}${htmlSafeJson(JSON.stringify(key))}:`;
      if (key === 'data') yield* records();
      else yield htmlSafeJson(stringifyJson((head as unknown as Record<string, unknown>)[key]));
    }
    yield '}';
  }

  function* records(): Generator<string> {
    yield '[';
    let written = 0;
    for (const file of input.pageFiles) {
      const texts: string[] = [];
      for (const record of recordsOf(file)) texts.push((written++ === 0 ? '' : ',') + stringifyJson(record));
      yield htmlSafeJson(texts.join(''));
    }
    yield ']';
  }
  writer.writeParts(input.file, parts());
  return count;
}
