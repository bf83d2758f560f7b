/**
 * The crawl's scheduler: which URL is fetched when, and when the crawl is over. URLs wait in the frontier as
 * strings; at most `concurrency` are fetched at once, and a fetch's slot is handed to the next URL the moment its
 * response has arrived, before that response is processed, and the processing waits for the new request to be
 * written out (`unsent`), so the connection is never idle while the CPU is busy.
 * Arrived responses are processed one at a time, in arrival order, at most `concurrency` of them in one turn of the
 * event loop; at most `concurrency` of them wait, so memory stays bounded when processing is slower than fetching.
 *
 * One mechanism bounds the fetches: the `#fetching` count checked in `#pump` (with worker threads, it bounds the URLs
 * handed to them, and their shares of `concurrency` bound the requests at the source). (A promise limiter such as
 * p-limit would queue a task and a promise per URL, where the frontier keeps a string, and cannot hold fetches back
 * while the processing falls behind.)
 */
import type { FetchedResponse } from './fetcher.js';
import { Frontier } from './frontier.js';
import { sharedByRequests } from './request-signal.js';

/**
 * How long arrivals are processed before the event loop gets a turn (see #drain). undici writes a request to a
 * reused connection from a setImmediate, which runs after a turn that was queued before it: a short turn keeps the
 * source busy meanwhile (five alternating crawls of 50,937 documents, median wall time: 0.3 ms 10.3 s, 1 ms 11.2 s,
 * one document per turn 12.5 s).
 */
const TURN_MS = 0.3;

/**
 * How many turns of the event loop the processing gives the requests just started to be written (see
 * SchedulerOptions.unsent) before it goes on regardless: a request waiting for a new connection is not written
 * until that connection is open, which on a distant source takes a round trip or more.
 */
const SEND_TURNS = 4;

/** Lets the event loop turn until `unsent()` is 0, SEND_TURNS times at most (a worker thread waits the same way). */
export async function untilSent(unsent: () => number): Promise<void> {
  for (let turns = 0; turns < SEND_TURNS && unsent() > 0; turns += 1) await new Promise(setImmediate);
}

/** A response that has arrived and waits to be processed (or the error that came instead). */
export type Arrival =
  { url: string; response: FetchedResponse; error?: undefined } | { url: string; response?: undefined; error: unknown };

export interface SchedulerOptions {
  concurrency: number;
  /**
   * URLs handed to `fetch` beyond `concurrency`, for a fetch that queues them and keeps to `concurrency` requests at
   * the source itself (worker threads, which then start the next request without waiting for this thread). The
   * responses waiting to be processed stay bounded by `concurrency`.
   */
  queued?: number;
  /** The caller's signal: aborting it stops the crawl as a failure does. */
  signal?: AbortSignal;
  /** `listPage`: the URL is a page of a list (see isListPage), for a fetch that queues URLs of its own. */
  fetch(url: string, signal: AbortSignal, listPage: boolean): Promise<FetchedResponse>;
  /**
   * Requests started and not yet written to their connection (Fetcher.unsent). Arrivals wait for these to go out
   * (up to SEND_TURNS turns of the event loop): undici writes a request to a reused connection one or two turns
   * after it is started, and processing in those turns held each request back by 0.7–1.0 ms, where waiting leaves
   * 0.3 ms (crawls of 11,071 documents at 20 ms a response: median wall time of ten alternating runs 15.20 s
   * without the wait, 15.05 s with it).
   */
  unsent?: () => number;
  /** Whether a URL is a page of a list: those are fetched first (see Frontier). */
  isListPage?: (url: string) => boolean;
  /** Handles one arrival; a throw fails the crawl. Not called once the crawl is stopping. */
  process(arrival: Arrival): Promise<void>;
}

export class Scheduler {
  /** Aborted when the caller's signal is, or at the first failure: requests in flight settle at once. */
  readonly signal: AbortSignal;
  readonly #options: SchedulerOptions;
  readonly #frontier: Frontier;
  readonly #arrivals: Arrival[] = [];
  readonly #failure = new AbortController();
  #fetching = 0;
  #draining = false;
  #drainScheduled = false;
  /** The first failure, as thrown (boxed: whatever was thrown, even undefined, is rethrown). */
  #firstFailure: { error: unknown } | undefined;
  #finished!: () => void;
  readonly #done = new Promise<void>((resolve) => (this.#finished = resolve));

  constructor(options: SchedulerOptions) {
    this.#options = options;
    this.#frontier = new Frontier(options.isListPage);
    const signal = options.signal ? AbortSignal.any([options.signal, this.#failure.signal]) : this.#failure.signal;
    this.signal = sharedByRequests(signal, options.concurrency);
  }

  /** Fetches `urls` and every URL added meanwhile; resolves when all are processed, throws the first failure. */
  async run(urls: Iterable<string>): Promise<void> {
    for (const url of urls) this.#frontier.push(url);
    if (this.#pump() === 0) this.#finished();
    await this.#done;
    if (this.#firstFailure !== undefined) throw this.#firstFailure.error;
  }

  add(url: string): void {
    this.#frontier.push(url);
    this.#pump();
  }

  /** Stops the crawl: nothing new is started, and `run` throws `error` once the requests in flight settle. */
  fail(error: unknown): void {
    this.#firstFailure ??= { error };
    this.#failure.abort(error);
  }

  /** Starts fetches while a slot is free, URLs wait, and the processing keeps up. */
  #pump(): number {
    const { concurrency, queued = 0 } = this.#options;
    let started = 0;
    while (
      !this.signal.aborted &&
      this.#fetching < concurrency + queued &&
      this.#arrivals.length < concurrency &&
      this.#frontier.size > 0
    ) {
      const { url, listPage } = this.#frontier.shift();
      this.#fetching += 1;
      started += 1;
      this.#options.fetch(url, this.signal, listPage).then(
        (response) => this.#arrive({ url, response }),
        (error: unknown) => this.#arrive({ url, error }),
      );
    }
    return started;
  }

  #arrive(arrival: Arrival): void {
    this.#fetching -= 1;
    this.#arrivals.push(arrival);
    this.#pump();
    // Processed from a later turn of the event loop: the requests just started are written out first (undici
    // writes to a reused connection from setImmediate), instead of waiting behind the CPU work.
    if (!this.#draining && !this.#drainScheduled) {
      this.#drainScheduled = true;
      setImmediate(() => void this.#drain());
    }
  }

  async #drain(): Promise<void> {
    this.#drainScheduled = false;
    this.#draining = true;
    let turnStart = performance.now();
    let inTurn = 0;
    while (this.#arrivals.length > 0) {
      const { unsent } = this.#options;
      if (unsent !== undefined && unsent() > 0) {
        await untilSent(unsent);
        turnStart = performance.now();
        inTurn = 0;
      }
      const arrival = this.#arrivals.shift()!;
      if (!this.signal.aborted) {
        try {
          await this.#options.process(arrival);
        } catch (error) {
          this.fail(error);
        }
      }
      this.#pump();
      // A few documents per turn of the event loop, for a fraction of a millisecond: responses that arrive
      // meanwhile are read, and the requests they free are written, without waiting for the whole backlog to be
      // processed, and the cost of a turn (polling, timers, the journal's write) is shared by its documents.
      inTurn += 1;
      if (inTurn >= this.#options.concurrency || performance.now() - turnStart >= TURN_MS) {
        await new Promise(setImmediate);
        turnStart = performance.now();
        inTurn = 0;
      }
    }
    this.#draining = false;
    if (this.#fetching === 0 && (this.signal.aborted || this.#frontier.size === 0)) this.#finished();
  }
}
