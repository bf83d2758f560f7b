/**
 * The crawl loop: start at the root index, follow every link in scope, fetch each canonical URL once with bounded
 * concurrency, parse it, and hand it on (docs/architecture.md#the-crawl-core). Three parts, each in its own file:
 * the scheduler (frontier and concurrency), discovery (which links become URLs to fetch, and its guards) and the
 * response handler (redirects, dead links, failures, documents). What happens to a document after parsing
 * (validation, writing) is the caller's `onDocument`. The body is parsed within the fetch (read-document.ts), so
 * that a body that does not read is fetched again like a stall.
 */
import type { UrlSet } from '../url/url-set.js';
import { UrlSpace } from '../url/url-space.js';
import type { CrawlCallbacks, ReadBody } from './crawl-types.js';
import { Discovery, type FirstPages } from './discovery.js';
import type { Fetcher, FetchedResponse } from './fetcher.js';
import { readDocument } from './read-document.js';
import { ResponseHandler } from './response-handler.js';
import { Scheduler } from './scheduler.js';

export type { CrawledDocument, ReadBody, ReadElsewhere, SettledUrl } from './crawl-types.js';

export interface CrawlerOptions extends CrawlCallbacks {
  /** The run's parsed URLs (shared with validation and the layout); a crawl of its own when absent. */
  urls?: UrlSpace;
  fetcher: Fetcher;
  concurrency: number;
  signal?: AbortSignal;
  /** Stop with an error past this many URLs (a guard against endless link generation). */
  maxDocuments?: number;
  /** What each list's first page said when it was last stored, for lists this crawl does not read page 1 of. */
  firstPages?: FirstPages;
  /**
   * Fetches a URL somewhere else than on this thread (a worker thread), where a 200 answer's document is also read
   * and handled (whatever the caller does with it), and comes back as `elsewhere`; with `readHere` (the root index,
   * whose checks need the document here) it is only read, and comes back as `json`. `first`: a page of a list, to be
   * fetched before what waits there. Rejects as the fetcher does, aborting `signal` at once.
   */
  fetchElsewhere?(
    url: string,
    signal: AbortSignal,
    options: { readHere: boolean; first: boolean },
  ): Promise<FetchedResponse<ReadBody>>;
  /**
   * URLs `fetchElsewhere` takes beyond `concurrency` and queues itself, keeping to `concurrency` requests at the
   * source on its own: it then starts the next request without waiting for this thread.
   */
  queuedElsewhere?: number;
  /**
   * Links discovered but not to be fetched now (`crawl --derive` decides about them once the lists are read): they
   * are marked seen and reported with their document, like any other, and not fetched.
   */
  defer?(url: string): boolean;
  /**
   * Continue an earlier crawl: `seen` are the URLs known to it (the crawl takes the set over and adds to it),
   * `pending` those of them still to fetch. Without it the crawl starts at the root.
   */
  resume?: { seen: UrlSet; pending: Iterable<string> };
  /**
   * Without `resume`: the set the crawl adds the URLs it sees to, kept by the caller so that a later crawl can go on
   * from it (pages fetched again, src/pipeline/settle-collections.ts).
   */
  seen?: UrlSet;
}

/**
 * Whether the canonical `url` is the root index (or its slash-less spelling), as `locate` would say, without parsing
 * it: with workers, the main thread parses no document but the root index.
 */
function isRootIndexUrl(url: string, root: string): boolean {
  return url === root || url === root.slice(0, -1);
}

export async function crawl(options: CrawlerOptions): Promise<void> {
  const { root, fetcher, concurrency } = options;
  const urls = options.urls ?? new UrlSpace(root);
  const discovery = new Discovery({
    root,
    urls,
    ...(options.resume ? { seen: options.resume.seen } : options.seen ? { seen: options.seen } : {}),
    ...(options.maxDocuments !== undefined ? { maxDocuments: options.maxDocuments } : {}),
    ...(options.firstPages !== undefined ? { firstPages: options.firstPages } : {}),
    onFinding: (finding) => options.onFinding(finding),
  });
  const scheduler: Scheduler = new Scheduler({
    concurrency,
    ...(options.fetchElsewhere !== undefined ? { queued: options.queuedElsewhere ?? 0 } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    fetch: (url, signal, listPage) =>
      options.fetchElsewhere !== undefined
        ? options.fetchElsewhere(url, signal, { readHere: isRootIndexUrl(url, root), first: listPage })
        : fetcher.fetch(url, signal, (response): ReadBody => ({ json: readDocument(url, response) })),
    unsent: () => fetcher.unsent,
    process: (arrival) => handler.process(arrival, () => scheduler.signal.aborted),
    isListPage: (url) => {
      const location = urls.locate(url);
      return location.kind === 'list' || (location.kind === 'related' && location.page > 1);
    },
  });
  const handler = new ResponseHandler(options, urls, discovery, (url) => {
    if (options.defer?.(url) !== true) scheduler.add(url);
  });

  let start: Iterable<string>;
  if (options.resume) {
    start = options.resume.pending;
  } else {
    // The root alone first: a wrong root URL ends the crawl with one clear message before anything else happens.
    discovery.markSeen(root);
    start = [root];
  }
  await scheduler.run(start);
  options.signal?.throwIfAborted();
}
