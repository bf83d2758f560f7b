/**
 * Worker threads for the per-document work of a crawl: reading the body, validating, rewriting links, serialising,
 * hashing and writing the file (document-worker.ts), so that it runs on every core while the main thread fetches,
 * discovers and journals. The main thread keeps everything that decides what the snapshot holds and in which order
 * it is recorded (the frontier, the URLs seen, the journal, SHA256SUMS), and a worker's output depends only on the
 * document and the run's settings: the snapshot is the same byte for byte with any number of workers, or none.
 *
 * Each body is copied once into a buffer of its own and moved to the worker, not cloned with the rest of the pool
 * buffer it may sit in; a document goes to the worker with the fewest documents waiting.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ReadElsewhere } from '../crawl/crawler.js';
import type { DocumentTargets } from '../crawl/discovery.js';
import type { FetchedResponse } from '../crawl/fetcher.js';
import { readError, type ReadFailure } from '../crawl/read-document.js';
import type { LinkMode } from '../format/rewrite-links.js';
import type { PreparedDocument } from './store-document.js';

/** The run's fixed settings, from which each worker builds its own URLs, layout, rewriter and writer. */
export interface WorkerSettings {
  root: string;
  links: LinkMode;
  baseUrl: string | undefined;
  /** The staged tree the files are written into. */
  tree: string;
  resuming: boolean;
}

export interface PoolRequest {
  id: number;
  url: string;
  contentType: string | undefined;
  body: ArrayBuffer;
}

/** A worker's errors cross as their fields: the main thread rebuilds them. */
interface CrossedError {
  message: string;
  stack: string | undefined;
  code: string | undefined;
  syscall: string | undefined;
  path: string | undefined;
  errno: number | undefined;
}

export type PoolResponse =
  | { id: number; targets: DocumentTargets; prepared: PreparedDocument }
  | { id: number; failure: ReadFailure }
  | { id: number; error: CrossedError };

interface Waiting {
  url: string;
  resolve(read: ReadElsewhere): void;
  reject(error: unknown): void;
}

/**
 * The command line's default number of workers: the cores beyond two, at most 8. The main thread keeps one core
 * busy, and the second is left to what else a crawl needs (the kernel's file work, V8's collector, a local source):
 * on two cores a worker measured at most about 10 % faster, for about 40 MB more memory.
 */
export function defaultWorkers(): number {
  return Math.max(0, Math.min(8, os.availableParallelism() - 2));
}

/** An error of a worker, as the main thread throws it: a file-system error keeps its code, call and path. */
function rebuilt(crossed: CrossedError): Error {
  const error = new Error(crossed.message) as NodeJS.ErrnoException;
  for (const key of ['code', 'syscall', 'path', 'errno'] as const) {
    if (crossed[key] !== undefined) Object.assign(error, { [key]: crossed[key] });
  }
  if (crossed.stack !== undefined) error.stack = crossed.stack;
  return error;
}

class PoolWorker {
  readonly waiting = new Map<number, Waiting>();
  readonly #worker: Worker;

  constructor(settings: WorkerSettings, onStopped: (error: Error) => void) {
    this.#worker = new Worker(new URL('./document-worker.js', import.meta.url), { workerData: settings });
    this.#worker.on('message', (response: PoolResponse) => this.#answer(response));
    this.#worker.on('error', (error) => onStopped(error));
    this.#worker.on('exit', (code) => {
      if (this.waiting.size > 0) onStopped(new Error(`it exited with code ${code}`));
    });
  }

  send(request: PoolRequest, waiting: Waiting): void {
    this.waiting.set(request.id, waiting);
    this.#worker.postMessage(request, [request.body]);
  }

  /** Rejects every document waiting on this worker. */
  fail(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }

  terminate(): Promise<number> {
    return this.#worker.terminate();
  }

  #answer(response: PoolResponse): void {
    const waiting = this.waiting.get(response.id);
    if (waiting === undefined) return;
    this.waiting.delete(response.id);
    if ('failure' in response) waiting.reject(readError(waiting.url, response.failure));
    else if ('error' in response) waiting.reject(rebuilt(response.error));
    else waiting.resolve({ targets: response.targets, prepared: response.prepared });
  }
}

export class DocumentPool {
  readonly #workers: PoolWorker[];
  #nextId = 0;
  /** Set when a worker stopped unexpectedly: every later document fails with it. */
  #broken: Error | undefined;

  constructor(size: number, settings: WorkerSettings) {
    this.#workers = Array.from({ length: size }, () => new PoolWorker(settings, (error) => this.#stopped(error)));
  }

  /** Reads, validates and writes the document `url` answered with `response` (a 200 answer) in a worker. */
  read(url: string, response: FetchedResponse): Promise<ReadElsewhere> {
    if (this.#broken !== undefined) return Promise.reject(this.#broken);
    let worker = this.#workers[0]!;
    for (const candidate of this.#workers) if (candidate.waiting.size < worker.waiting.size) worker = candidate;
    // A copy of exactly the body's bytes, moved (not cloned) to the worker.
    const body = new Uint8Array(response.body).buffer;
    const request: PoolRequest = { id: this.#nextId++, url, contentType: response.headers['content-type'], body };
    return new Promise((resolve, reject) => worker.send(request, { url, resolve, reject }));
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }

  #stopped(error: Error): void {
    this.#broken ??= new Error(`A document worker thread stopped: ${error.message}`, { cause: error });
    for (const worker of this.#workers) worker.fail(this.#broken);
  }
}
