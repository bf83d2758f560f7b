/**
 * How the sample API answers one request: the fault planned for it, the answer prepared on arrival, and the moment
 * it is sent (its latency counted from arrival). server.ts owns the HTTP server around it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './api-error.js';
import { answer, errorReply, type EndpointContext } from './endpoints.js';
import { FaultPlan, faultKey, jitterFor, type FaultKind } from './faults.js';
import { acceptsGzip } from './negotiation.js';
import { deliver, prepareReply, type BodyFault, type PreparedReply } from './respond.js';
import { plural } from '../util/plural.js';

export interface RequestLogEntry {
  method: string;
  /** Raw request target (path and query). */
  url: string;
  /** Status sent, or the fault: 'reset', 'stall', 'truncated', 'corrupt-gzip'; 'aborted' if the client left first. */
  status: number | string;
}

/** The server's settings a request's answer depends on. */
export interface HandlerSettings {
  seed: number;
  latencyMs: number;
  jitterMs: number;
  stallMs: number;
  retryAfter: number;
  faultRate: number;
  compress: boolean;
  logRequests: boolean;
}

const HOST_HEADER = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The reply to a request whose answer threw: a bug must not take the server down mid-benchmark. */
const internalError = (req: IncomingMessage, error: unknown): PreparedReply =>
  prepareReply(req, errorReply(new ApiError(500, String(error), 'error')), { compress: false, fault: null });

export class RequestHandler {
  /** Every request received, in order (empty without `logRequests`). */
  readonly requestLog: RequestLogEntry[] = [];
  /** The server's own origin, for requests without a usable Host header; known once the server listens. */
  origin = '';
  readonly #faults: FaultPlan;
  /** Timers of answers and stalls still due: `close` clears them. */
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly context: EndpointContext,
    private readonly settings: HandlerSettings,
  ) {
    this.#faults = new FaultPlan(settings.seed, settings.faultRate);
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const { settings } = this;
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const arrivedMs = performance.now();
    const entry: RequestLogEntry = { method, url: target, status: 'pending' };
    if (settings.logRequests) {
      this.requestLog.push(entry);
      res.on('close', () => {
        if (entry.status === 'pending') entry.status = 'aborted';
      });
    }
    const queryAt = target.indexOf('?');
    const key = queryAt < 0 ? target : faultKey(target.slice(0, queryAt), target.slice(queryAt + 1));
    // The attempt is counted on arrival, so concurrent retries of one URL are numbered in arrival order.
    const fault =
      method === 'GET' || method === 'HEAD'
        ? this.#faults.next(key, acceptsGzip(req.headers['accept-encoding']))
        : null;
    // The answer is prepared on arrival and sent when the latency has passed: the latency is the time to answer,
    // not a wait before the work (which, on this one event loop, would queue behind other requests' work).
    let prepared: PreparedReply | null = null;
    if (fault !== 'stall') {
      try {
        prepared = this.#prepare(req, fault);
      } catch (error) {
        prepared = internalError(req, error);
      }
    }
    // The latency counts from the request's arrival, so the time spent preparing the answer is part of it.
    const delay =
      settings.latencyMs + jitterFor(settings.seed, key, settings.jitterMs) - (performance.now() - arrivedMs);
    if (delay > 0) this.#later(delay, () => this.#send(req, res, prepared, entry));
    else this.#send(req, res, prepared, entry);
  }

  /** Clears the timers still due. */
  stop(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  #later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, ms);
    this.#timers.add(timer);
  }

  /** Sends the prepared answer; none (a 'stall' fault) holds the connection, then destroys it. */
  #send(req: IncomingMessage, res: ServerResponse, prepared: PreparedReply | null, entry: RequestLogEntry): void {
    if (res.destroyed || req.socket.destroyed) return;
    if (prepared === null) {
      this.#later(this.settings.stallMs, () => req.socket.destroy());
      entry.status = 'stall';
      return;
    }
    try {
      entry.status = deliver(req, res, prepared);
    } catch (error) {
      entry.status = deliver(req, res, internalError(req, error));
    }
  }

  /** The answer to `req`, prepared at once; a 'stall' fault is not an answer, and is handled when it is due. */
  #prepare(req: IncomingMessage, fault: Exclude<FaultKind, 'stall'> | null): PreparedReply {
    const { compress } = this.settings;
    if (fault === 'reset') return { action: 'reset' };
    if (typeof fault === 'number')
      return prepareReply(req, errorReply(this.#statusFault(fault)), { compress, fault: null });
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const hostHeader = req.headers.host;
    const reply = answer(this.context, {
      method: req.method ?? 'GET',
      origin: hostHeader !== undefined && HOST_HEADER.test(hostHeader) ? `http://${hostHeader}` : this.origin,
      path: queryAt < 0 ? target : target.slice(0, queryAt),
      rawQuery: queryAt < 0 ? '' : target.slice(queryAt + 1),
      accept: req.headers.accept,
    });
    return prepareReply(req, reply, { compress, fault: fault satisfies BodyFault | null });
  }

  #statusFault(kind: 500 | 503 | 429): ApiError {
    if (kind === 429) {
      const { retryAfter } = this.settings;
      const seconds = plural(retryAfter, 'second');
      return new ApiError(429, `Request was throttled. Expected available in ${seconds}.`, 'throttled', undefined, {
        'Retry-After': String(retryAfter),
      });
    }
    return kind === 503
      ? new ApiError(503, 'Service temporarily unavailable, try again later.', 'service_unavailable')
      : new ApiError(500, 'A server error occurred.', 'error');
  }
}
