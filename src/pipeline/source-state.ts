/**
 * `--resume` continues a crawl only while the source is in the state the crawl began with
 * (docs/architecture.md#pages-that-shift): otherwise the snapshot would hold documents of two states (a list page
 * naming a record's old term, the record its new one). The signs compared are cheap: the root index's ETag,
 * Last-Modified and content, and the count page 1 of each collection stated. A change is refused with the command
 * that starts afresh; nothing is fetched beyond these few documents.
 */
import type { Fetcher } from '../crawl/fetcher.js';
import { readDocument } from '../crawl/read-document.js';
import { SourceChangedError } from '../util/errors.js';
import type { JournalSource } from '../store/journal.js';
import { sourceHash } from './store-document.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { shellWord } from '../util/safe-text.js';

export interface SourceStateInput {
  root: string;
  /** --out as given, for the command in the message. */
  out: string;
  fetcher: Fetcher;
  /** What the journal recorded of the root index; all null when it was not fetched before the interruption. */
  source: JournalSource;
  /** The count page 1 of each collection stated, as journaled. */
  firstPages: Map<string, { url: string; count: number }>;
  signal?: AbortSignal | undefined;
}

async function fetchDocument(input: SourceStateInput, url: string) {
  return input.fetcher.fetch(url, input.signal, (response) => readDocument(url, response));
}

/** What differs between the journaled root index and the one the source answers now. */
async function rootChanges(input: SourceStateInput): Promise<string[]> {
  const { source } = input;
  if (source.etag === null && source.lastModified === null && source.sha256 === undefined) return [];
  const now = await fetchDocument(input, input.root);
  if (now.status !== 200) return [`its root index answers ${now.status}`];
  const changes: string[] = [];
  const header = (name: string, was: string | null, is: string | undefined): void => {
    if (was !== null && was !== is) changes.push(`the root index's ${name} was ${was} and is ${is ?? 'absent'} now`);
  };
  header('ETag', source.etag, now.headers.etag);
  header('Last-Modified', source.lastModified, now.headers['last-modified']);
  if (source.sha256 !== undefined && sourceHash(now.document) !== source.sha256) {
    changes.push("the root index's content differs");
  }
  return changes;
}

export async function checkSourceUnchanged(input: SourceStateInput): Promise<void> {
  const changes = await rootChanges(input);
  for (const [collection, { url, count }] of [...input.firstPages].sort(([a], [b]) => byCodeUnits(a, b))) {
    if (changes.length > 0) break;
    const now = await fetchDocument(input, url);
    const counted = (now.document as { meta?: { pagination?: { count?: unknown } } } | undefined)?.meta?.pagination
      ?.count;
    if (now.status !== 200) changes.push(`page 1 of ${collection} answers ${now.status}`);
    else if (counted !== count)
      changes.push(`${collection} counted ${count} records and counts ${String(counted)} now`);
  }
  if (changes.length === 0) return;
  const command = ['cv-snapshot', 'crawl', input.root, '--out', input.out, '--fresh'].map(shellWord).join(' ');
  throw new SourceChangedError(
    `The source at ${input.root} has changed since the interrupted crawl began (${changes.join('; ')}), so ` +
      'resuming would mix two states of it in one snapshot; nothing was published. Start afresh, discarding the ' +
      `interrupted crawl's work: ${command} (with the other options you gave).`,
  );
}
