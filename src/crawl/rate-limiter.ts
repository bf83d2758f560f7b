/**
 * Spaces requests at most `ratePerSecond` apart; every attempt, retries included, takes a slot
 * (docs/architecture.md#crawling-rules).
 *
 * Requests start one after another, each at least an interval after the one before it actually started. Slots are
 * not booked in advance: timers booked ahead all fire together after the event loop was held up (a large document
 * parsed, the collector), and the requests waiting on them would go out at once, a burst at the source. A request
 * whose caller gives up while it waits (an abort) leaves at once, and the ones after it keep their place.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export class RateLimiter {
  private readonly intervalMs: number;
  /** When the last request was let go (performance.now()). */
  #lastStart = -Infinity;
  /** Settles once the last caller in line has been let go or has given up: the next one waits for it. */
  #line: Promise<void> = Promise.resolve();

  constructor(ratePerSecond: number) {
    this.intervalMs = 1000 / ratePerSecond;
  }

  async take(signal?: AbortSignal): Promise<void> {
    const before = this.#line;
    let done!: () => void;
    this.#line = new Promise<void>((resolve) => (done = resolve));
    try {
      await abortable(before, signal);
      // A timer counts from the event loop's time, which lags the clock by what ran before it in the same turn, so
      // it may fire that much early: wait again for what is left.
      for (let wait = this.#wait(); wait > 0; wait = this.#wait()) await sleep(wait, undefined, { signal });
      this.#lastStart = performance.now();
      done();
    } catch (error) {
      // Given up: the next caller goes once the one ahead of this one has gone, never before it.
      void before.then(done);
      throw error;
    }
  }

  /** How long the next caller must still wait. */
  #wait(): number {
    return this.#lastStart + this.intervalMs - performance.now();
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
