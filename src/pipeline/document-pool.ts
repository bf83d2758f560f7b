/**
 * Worker threads that fetch and store documents for a crawl (docs/architecture.md#worker-threads): each worker has
 * its own HTTP client and runs, per URL the main thread hands it, what the main thread would otherwise run: the fetch
 * with its retries, then reading the body, resolving its links, validating, rewriting, serialising, hashing and
 * writing the file (document-worker.ts). It answers with the targets of the document's links and what the journal
 * needs. The main thread keeps everything that decides what the snapshot holds and in which order it is recorded
 * (the frontier, the URLs seen, the journal, SHA256SUMS), so the snapshot is the same byte for byte with any number
 * of workers, or none.
 *
 * Each worker has a share of `--concurrency`, the shares adding up to it exactly: a worker never has more requests at
 * the source than its share (its HTTP client has that many connections), so the source never sees more than
 * `--concurrency` requests at once. A worker also keeps as many URLs again queued, and starts the next one itself as
 * soon as a response is read: a request waits neither for the answer to cross to the main thread nor for the next
 * URL to cross back (those crossings cost about 2 ms a request, against a 20 ms source). A URL goes to the worker
 * with the most room. Messages in both directions are sent in batches, one per turn of the sender's event loop, so
 * that a message costs a few microseconds of each thread rather than a wake-up per document.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { SharedCapture } from '../capture/capture-run.js';
import type { ReadBody } from '../crawl/crawler.js';
import type { DocumentTargets } from '../crawl/discovery.js';
import type { FetchedResponse, FetchStats } from '../crawl/fetcher.js';
import { readError, type ReadFailure } from '../crawl/read-document.js';
import { FetchError, type FetchHint } from '../util/errors.js';
import type { LinkMode } from '../format/rewrite-links.js';
import type { ApiLocation } from '../url/api-location.js';
import type { PreparedDocument } from './store-document.js';

/** The run's fixed settings, from which each worker builds its own HTTP client, URLs, layout, rewriter and writer. */
export interface WorkerSettings {
  root: string;
  links: LinkMode;
  baseUrl: string | undefined;
  /** The staged tree the files are written into. */
  tree: string;
  resuming: boolean;
  fetch: {
    /** Requests this worker may have at the source at once (its share of --concurrency), and its connections. */
    concurrency: number;
    retries: number;
    timeoutMs: number;
    maxBytes: number;
    userAgent: string;
    headers: Record<string, string>;
    /** This worker's share of --rate, in requests per second. */
    rate: number | undefined;
    backoffBaseMs: number | undefined;
  };
  /** With --warc: the capture file the worker records its exchanges into (docs/capture.md). */
  capture?: SharedCapture;
}

/**
 * Main thread to worker: a URL to fetch, or that every fetch is abandoned (the crawl is stopping). `readHere`: the
 * document is only read, not stored, and comes back parsed (the root index, whose checks are the main thread's);
 * `first`: it goes ahead of the URLs the worker has queued (a page of a list, as in the frontier).
 */
export type PoolRequest = { t: 'fetch'; id: number; url: string; readHere: boolean; first: boolean } | { t: 'abort' };

/** A worker's errors cross as their fields, and the main thread rebuilds them. */
export type CrossedError =
  | { kind: 'fetch'; reason: string; attempts: number; status: number | undefined; hint: FetchHint }
  | { kind: 'read'; failure: ReadFailure }
  | {
      kind: 'other';
      message: string;
      stack: string | undefined;
      code: string | undefined;
      syscall: string | undefined;
      path: string | undefined;
      errno: number | undefined;
    };

/** A document read and stored by a worker: what the main thread journals. */
export interface StoredElsewhere {
  location: ApiLocation;
  targets: DocumentTargets;
  prepared: PreparedDocument;
}

/**
 * Worker to main thread, one per URL: the answer (a document stored, or read when asked to read it here, or another
 * status), or why there is none.
 */
export type PoolResponse = { id: number } & (
  | {
      status: number;
      headers: Record<string, string>;
      attempts: number;
      stored: StoredElsewhere | undefined;
      /** The parsed document, when it was to be read here. */
      json?: unknown;
    }
  | { error: CrossedError }
);

/** A worker's message: the answers of one turn of its event loop, and the requests and retries made since the last. */
export interface PoolBatch {
  answers: PoolResponse[];
  requests: number;
  retries: number;
}

interface Waiting {
  url: string;
  resolve(response: FetchedResponse<ReadBody>): void;
  reject(error: unknown): void;
}

/**
 * The command line's default number of workers: the cores beyond two, at most 6, and none when that leaves fewer
 * than 2 (docs/architecture.md#worker-threads has the measurements). One worker alone only moves the work off the
 * main thread, at a cost; the cores left are for the main thread and what else a crawl needs (the kernel's file
 * work, V8's collector, a source on the same machine); past about 6 workers the main thread is the limit.
 */
export function defaultWorkers(cores = os.availableParallelism()): number {
  const workers = Math.min(6, cores - 2);
  return workers >= 2 ? workers : 0;
}

/** The error a worker's failure is, on this thread: the same class as a fetch on this thread would throw. */
function rebuilt(url: string, crossed: CrossedError): Error {
  switch (crossed.kind) {
    case 'fetch':
      return new FetchError(url, crossed.reason, crossed.attempts, crossed.status, crossed.hint);
    case 'read':
      return readError(url, crossed.failure);
    case 'other': {
      const error = new Error(crossed.message) as NodeJS.ErrnoException;
      for (const key of ['code', 'syscall', 'path', 'errno'] as const) {
        if (crossed[key] !== undefined) Object.assign(error, { [key]: crossed[key] });
      }
      if (crossed.stack !== undefined) error.stack = crossed.stack;
      return error;
    }
  }
}

class PoolWorker {
  readonly waiting = new Map<number, Waiting>();
  readonly #worker: Worker;
  #outbox: PoolRequest[] = [];

  constructor(
    /** URLs it may hold at once: its share of requests at the source, and as many queued. */
    readonly capacity: number,
    settings: WorkerSettings,
    private readonly stats: FetchStats,
    onStopped: (error: Error) => void,
  ) {
    this.#worker = new Worker(new URL('./document-worker.js', import.meta.url), { workerData: settings });
    this.#worker.on('message', ({ answers, requests, retries }: PoolBatch) => {
      this.stats.requests += requests;
      this.stats.retries += retries;
      for (const response of answers) this.#answer(response);
    });
    this.#worker.on('error', (error) => onStopped(error));
    this.#worker.on('exit', (code) => {
      if (this.waiting.size > 0) onStopped(new Error(`it exited with code ${code}`));
    });
  }

  send(request: PoolRequest, waiting?: Waiting): void {
    if (request.t === 'fetch' && waiting !== undefined) this.waiting.set(request.id, waiting);
    // Sent at the end of this task, with whatever else this task sends: one message for the URLs a turn starts.
    if (this.#outbox.push(request) === 1) queueMicrotask(() => this.#flush());
  }

  /** Rejects every URL waiting on this worker with `error`. */
  fail(error: unknown): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }

  terminate(): Promise<number> {
    return this.#worker.terminate();
  }

  #flush(): void {
    const outbox = this.#outbox;
    this.#outbox = [];
    this.#worker.postMessage(outbox);
  }

  #answer(response: PoolResponse): void {
    const waiting = this.waiting.get(response.id);
    if (waiting === undefined) return;
    this.waiting.delete(response.id);
    if ('error' in response) {
      waiting.reject(rebuilt(waiting.url, response.error));
      return;
    }
    const { status, headers, attempts, stored, json } = response;
    const document: ReadBody | undefined =
      stored !== undefined ? { elsewhere: stored } : json !== undefined ? { json } : undefined;
    waiting.resolve({ status, headers, body: Buffer.alloc(0), attempts, ...(document ? { document } : {}) });
  }
}

export class DocumentPool {
  /** URLs the workers queue beyond `concurrency` (requests at the source), all together. */
  readonly queued: number;
  readonly #workers: PoolWorker[];
  #nextId = 0;
  /** Set when a worker stopped unexpectedly: every later URL fails with it. */
  #broken: Error | undefined;
  readonly #aborting = new WeakSet<AbortSignal>();

  /**
   * `size` workers (at most `concurrency` of them) sharing `concurrency` requests at the source (and
   * `settings.fetch.rate`); the requests they make are counted in `stats`.
   */
  constructor(size: number, concurrency: number, settings: WorkerSettings, stats: FetchStats) {
    const count = Math.min(size, concurrency);
    const rate = settings.fetch.rate === undefined ? undefined : settings.fetch.rate / count;
    this.#workers = Array.from({ length: count }, (_, i) => {
      // The shares add up to `concurrency` exactly: the remainder goes one each to the first workers.
      const share = Math.floor(concurrency / count) + (i < concurrency % count ? 1 : 0);
      const workerSettings = { ...settings, fetch: { ...settings.fetch, concurrency: share, rate } };
      return new PoolWorker(2 * share, workerSettings, stats, (error) => this.#stopped(error));
    });
    this.queued = concurrency;
  }

  /**
   * Fetches `url` in a worker; a 200 answer's document is read and stored there, and comes back as `elsewhere`
   * (`readHere`: read there and sent back as `json`, not stored). `first`: ahead of the URLs the worker has queued.
   * Rejects as the fetcher on this thread would, with the same error classes; aborting `signal` rejects at once.
   */
  fetch(
    url: string,
    signal: AbortSignal,
    { readHere = false, first = false }: { readHere?: boolean; first?: boolean } = {},
  ): Promise<FetchedResponse<ReadBody>> {
    if (this.#broken !== undefined) return Promise.reject(this.#broken);
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    this.#watch(signal);
    let worker = this.#workers[0]!;
    const room = (candidate: PoolWorker) => candidate.capacity - candidate.waiting.size;
    for (const candidate of this.#workers) if (room(candidate) > room(worker)) worker = candidate;
    if (room(worker) <= 0) {
      // The scheduler never has more than --concurrency + `queued` URLs out, which is what the workers hold.
      throw new Error('every worker already holds as many URLs as it may');
    }
    const id = this.#nextId++;
    return new Promise((resolve, reject) =>
      worker.send({ t: 'fetch', id, url, readHere, first }, { url, resolve, reject }),
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }

  /** Once `signal` aborts, everything in flight settles at once, and the workers drop their requests. */
  #watch(signal: AbortSignal): void {
    if (this.#aborting.has(signal)) return;
    this.#aborting.add(signal);
    signal.addEventListener(
      'abort',
      () => {
        for (const worker of this.#workers) {
          worker.fail(signal.reason);
          worker.send({ t: 'abort' });
        }
      },
      { once: true },
    );
  }

  #stopped(error: Error): void {
    this.#broken ??= new Error(`A document worker thread stopped: ${error.message}`, { cause: error });
    for (const worker of this.#workers) worker.fail(this.#broken);
  }
}
