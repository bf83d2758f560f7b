/**
 * A worker thread of the document pool (document-pool.ts): it fetches the URLs the main thread sends it, with its
 * own HTTP client, and reads, validates, rewrites and writes each document with the same code the main thread runs
 * without workers (`readBody`, `resolveLinks`, `documentTargets`, `prepareDocument`). It answers with what the main
 * thread needs to go on: the status, the targets of the document's links and what the journal records. It holds no
 * state of the crawl: its URLs, layout and writer are built from the run's fixed settings, so its output is the same
 * whichever thread writes it.
 *
 * At most its share of `--concurrency` URLs are fetched at once; the others wait in a queue of its own, and the next
 * starts the moment a response is read, before the document is stored (which waits until the new request is
 * written out, as on the main thread: see the scheduler's `unsent`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { joinCapture } from '../capture/capture-run.js';
import { documentTargets, listPages } from '../crawl/discovery.js';
import { Fetcher, type FetchedResponse } from '../crawl/fetcher.js';
import { RateLimiter } from '../crawl/rate-limiter.js';
import { untilSent } from '../crawl/scheduler.js';
import { readBody, readError, type ReadFailure } from '../crawl/read-document.js';
import { createClock } from '../util/clock.js';
import { FetchError } from '../util/errors.js';
import { Layout } from '../format/layout.js';
import { createLinkRewriter } from '../format/rewrite-links.js';
import { resolveLinks } from '../jsonapi/links.js';
import { TreeWriter } from '../store/writer.js';
import { UrlSpace, type ParsedUrl } from '../url/url-space.js';
import type {
  CrossedError,
  PoolBatch,
  PoolRequest,
  PoolResponse,
  StoredElsewhere,
  WorkerSettings,
} from './document-pool.js';
import { prepareDocument, type DocumentContext } from './store-document.js';
import { sharedByRequests } from '../crawl/request-signal.js';

const settings = workerData as WorkerSettings;
const urls = new UrlSpace(settings.root);
const layout = new Layout(settings.root, urls);
const context: DocumentContext = {
  root: settings.root,
  layout,
  rewriter: createLinkRewriter(layout, settings.links, settings.baseUrl),
  // The main thread lists the files for SHA256SUMS; this writer only writes them.
  writer: new TreeWriter(settings.tree, { listing: false }),
  resuming: settings.resuming,
};
const clock = createClock();
const { rate, ...fetchOptions } = settings.fetch;
const fetcher = new Fetcher({
  ...fetchOptions,
  // Each exchange is recorded on this thread as it ends, before its document is stored and reported.
  ...(settings.capture !== undefined ? { recorder: joinCapture(settings.capture, () => clock.now()) } : {}),
  ...(rate !== undefined ? { rateLimiter: new RateLimiter(rate) } : {}),
  ...(fetchOptions.backoffBaseMs !== undefined ? { backoffBaseMs: fetchOptions.backoffBaseMs } : {}),
});
/**
 * Whether a target was announced to the main thread before, and marks it announced. The main thread marks every
 * target it is told of as seen, so one announced before needs no message; the set holds what this thread's space of
 * URLs still remembers.
 */
const announcedTargets = new WeakSet<ParsedUrl>();
function announced(target: ParsedUrl): boolean {
  if (announcedTargets.has(target)) return true;
  announcedTargets.add(target);
  return false;
}
/** A controller whose signal this worker's requests in flight (its share of --concurrency) all listen to. */
function requestsController(): AbortController {
  const controller = new AbortController();
  sharedByRequests(controller.signal, settings.fetch.concurrency);
  return controller;
}

/** Aborted when the main thread abandons the crawl's requests; replaced by a fresh one for later requests. */
let abandon = requestsController();

/** A body that does not read and is not to be fetched again: the main thread makes the error of it. */
class ReadFailed extends Error {
  constructor(readonly failure: ReadFailure) {
    super(failure.detail);
  }
}

/** A 200 answer's document, parsed; a body that may read when fetched again is fetched again (by the fetcher). */
function read(url: string, response: FetchedResponse): { json: unknown } {
  const body = readBody(response);
  if ('failure' in body) {
    throw body.failure.kind === 'retry' ? readError(url, body.failure) : new ReadFailed(body.failure);
  }
  return body;
}

/** A document read: its links resolved, checked, rewritten and written. */
function store(url: string, json: unknown): StoredElsewhere {
  const location = urls.locate(url);
  const links = resolveLinks(json, location.kind === 'root', url, urls);
  const targets = documentTargets(links, url, settings.root, listPages(location, json), announced);
  return { location, targets, prepared: prepareDocument(context, url, location, json, links) };
}

/** A failure as it crosses to the main thread, which rebuilds the same error. */
function crossed(error: unknown): CrossedError {
  if (error instanceof FetchError) {
    const { reason, attempts, status, hint } = error;
    return { kind: 'fetch', reason, attempts, status, hint };
  }
  // Rebuilt on the main thread from the same reading of the same body, with the same sentence.
  if (error instanceof ReadFailed) return { kind: 'read', failure: error.failure };
  // Whatever else went wrong (a file-system call, a fault of ours) crosses as its message and errno fields.
  const { message, stack, code, syscall, path, errno } = error as NodeJS.ErrnoException;
  return { kind: 'other', message: String(message), stack, code, syscall, path, errno };
}

let outbox: PoolResponse[] = [];
/** The requests and retries counted in the last message. */
const reported = { requests: 0, retries: 0 };

/**
 * Answers are sent once per turn of this thread's event loop: the documents that arrived together, in one message,
 * with the requests and retries made since the last one.
 */
function answer(response: PoolResponse): void {
  if (outbox.push(response) === 1) {
    setImmediate(() => {
      const { requests, retries } = fetcher.stats;
      const batch: PoolBatch = {
        answers: outbox,
        requests: requests - reported.requests,
        retries: retries - reported.retries,
      };
      outbox = [];
      Object.assign(reported, { requests, retries });
      parentPort!.postMessage(batch);
    });
  }
}

type Job = Extract<PoolRequest, { t: 'fetch' }>;

/** URLs sent by the main thread and not yet started: pages of lists first, as in the main thread's frontier. */
let queued = { pages: [] as Job[], others: [] as Job[] };
/** URLs being fetched: at most this worker's share of --concurrency. */
let fetching = 0;

/** Starts queued URLs while this worker has fewer than its share at the source. */
function startQueued(): void {
  while (fetching < settings.fetch.concurrency) {
    const job = queued.pages.shift() ?? queued.others.shift();
    if (job === undefined) return;
    fetching += 1;
    void fetchAndStore(job, abandon.signal);
  }
}

async function fetchAndStore({ id, url, readHere }: Job, signal: AbortSignal): Promise<void> {
  let response: FetchedResponse<{ json: unknown }>;
  try {
    response = await fetcher.fetch(url, signal, (fetched) => read(url, fetched));
  } catch (error) {
    fetching -= 1;
    startQueued();
    if (!signal.aborted) answer({ id, error: crossed(error) });
    return;
  }
  // The source is done with this URL: the next one starts, and goes out before this document is stored.
  fetching -= 1;
  startQueued();
  await untilSent(() => fetcher.unsent);
  if (signal.aborted) return;
  const { status, headers, attempts, document } = response;
  try {
    if (readHere) {
      answer({ id, status, headers, attempts, stored: undefined, ...(document ? { json: document.json } : {}) });
      return;
    }
    const stored = document === undefined ? undefined : store(url, document.json);
    // Of the headers, the main thread reads a redirect's Location only.
    const kept: Record<string, string> = {};
    if (headers.location !== undefined) kept.location = headers.location;
    answer({ id, status, headers: kept, attempts, stored });
  } catch (error) {
    answer({ id, error: crossed(error) });
  }
}

parentPort!.on('message', (requests: PoolRequest[]) => {
  for (const request of requests) {
    if (request.t === 'abort') {
      abandon.abort();
      abandon = requestsController();
      queued = { pages: [], others: [] };
    } else {
      (request.first ? queued.pages : queued.others).push(request);
    }
  }
  startQueued();
});
