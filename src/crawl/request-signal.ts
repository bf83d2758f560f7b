/**
 * The signal that every request in flight listens to: its fetch, its backoff and its wait for a `--rate` slot each
 * add an abort listener while they last. Node warns of a leak once a signal has more than 10, which any crawl with
 * `--concurrency` over 10 and a `--rate` reached (a warning on stderr that no user can act on). The bound is raised to
 * what the requests in flight can add, so that a real leak past it is still reported.
 */
import { setMaxListeners } from 'node:events';

/** Listeners a request in flight may add to the signal at once, with room for the crawl's own. */
const PER_REQUEST = 3;
const OWN = 10;

export function sharedByRequests(signal: AbortSignal, concurrency: number): AbortSignal {
  setMaxListeners(PER_REQUEST * concurrency + OWN, signal);
  return signal;
}
