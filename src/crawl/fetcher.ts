/**
 * Fetching one URL (docs/architecture.md#crawling-rules): one undici dispatcher with keep-alive (proxies from
 * HTTPS_PROXY/HTTP_PROXY/ NO_PROXY), `Accept: application/vnd.api+json`, gzip/br, a timeout for the headers and between
 * body chunks, a deadline for the whole attempt, a response size cap, and retries with exponential backoff and full
 * jitter on network errors, 5xx, 429 (Retry-After honoured) and bodies that do not read. Redirects are not followed
 * here: the crawler decides whether their target is in scope.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import type { ExchangeRecorder } from '../capture/exchange-tap.js';
import { MEDIA_TYPE } from '../jsonapi/media-type.js';
import { FetchError, type FetchHint } from '../util/errors.js';
import { urlParts } from '../url/canonical-url.js';
import type { RateLimiter } from './rate-limiter.js';
import { RetryableBodyError } from './read-document.js';
import { InFlight, ResponseCollector, type ExchangeFailure, type RawResponse } from './response-collector.js';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const brotli = promisify(zlib.brotliDecompress);
/** The content codings a body may come in (`Accept-Encoding` asks for gzip and br; deflate is read too). */
const CONTENT_CODINGS = new Set(['gzip', 'x-gzip', 'br', 'deflate']);

/** Bodies up to this size are decompressed synchronously: cheaper than a thread-pool round trip. */
const SYNC_DECODE_LIMIT = 256 * 1024;

/**
 * Every attempt ends within this many times `--timeout` (5 minutes at the default 30 s), however slowly its body
 * trickles in, and is then retried like a stall.
 */
const ATTEMPT_DEADLINE_FACTOR = 10;

/** The longest delay a Node timer takes (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface FetcherOptions {
  concurrency: number;
  /** Retries after the first attempt. */
  retries: number;
  /** Time allowed for the headers and, separately, between body chunks. */
  timeoutMs: number;
  /** Time allowed for a whole attempt; default ATTEMPT_DEADLINE_FACTOR × timeoutMs. */
  attemptDeadlineMs?: number;
  maxBytes: number;
  userAgent: string;
  /** Extra request headers (for example credentials); never logged. */
  headers: Record<string, string>;
  rateLimiter?: RateLimiter;
  /** First backoff delay; doubles per retry, with full jitter. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Longest Retry-After that is honoured as given; longer ones are capped. */
  retryAfterMaxMs?: number;
  /** Told every exchange, retries and failures included (`crawl --warc`, docs/capture.md). */
  recorder?: ExchangeRecorder;
}

export interface FetchedResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  /** Decoded body (empty for anything but a 2xx answer). */
  body: Buffer;
  attempts: number;
  /** What `read` made of a 200 answer's body; undefined for other answers or without `read`. */
  document?: T;
}

export interface FetchStats {
  requests: number;
  retries: number;
}

class RetryableError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
    readonly hint?: FetchHint,
  ) {
    super(message);
  }
}

class FinalError extends Error {
  constructor(
    message: string,
    readonly hint?: FetchHint,
  ) {
    super(message);
  }
}

/**
 * Retry-After as seconds or as an HTTP-date (RFC 9110 §10.2.3); undefined for anything else. Date.parse alone
 * would read `1.5` or `-1` as a day in 2001, long past, and the retry would come at once.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  if (!/[a-z]{3}/i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Whether the environment names a proxy (as EnvHttpProxyAgent reads it). */
function proxyConfigured(): boolean {
  const env = process.env;
  return Boolean(env.http_proxy || env.HTTP_PROXY || env.https_proxy || env.HTTPS_PROXY);
}

/** Statuses whose body the crawl reads: only success. Of redirects and errors only the status and headers count. */
function bodyWanted(status: number): boolean {
  return status >= 200 && status < 300;
}

export class Fetcher {
  readonly stats: FetchStats = { requests: 0, retries: 0 };
  private readonly dispatcher: Dispatcher;
  /** The same for every request, so built once. */
  private readonly requestHeaders: Record<string, string>;
  /** Exchanges in flight per abort signal: one listener per signal stops them all. */
  private readonly inFlight = new WeakMap<AbortSignal, InFlight>();
  #unsent = 0;

  constructor(private readonly options: FetcherOptions) {
    const agentOptions = {
      connections: options.concurrency,
      keepAliveTimeout: 30_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    };
    // Without a proxy in the environment EnvHttpProxyAgent sends everything through a plain Agent, but still reads
    // NO_PROXY from the environment on every request.
    this.dispatcher = proxyConfigured() ? new EnvHttpProxyAgent(agentOptions) : new Agent(agentOptions);
    this.requestHeaders = {
      ...options.headers,
      accept: MEDIA_TYPE,
      'accept-encoding': 'gzip, br',
      'user-agent': options.userAgent,
    };
  }

  /**
   * Requests handed to undici that it has not yet written to their connection. undici writes a request to a
   * kept-alive connection only from a later turn of the event loop (setImmediate), so CPU work done meanwhile holds
   * the request back (the crawl's scheduler waits for this to reach 0 first).
   */
  get unsent(): number {
    return this.#unsent;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /**
   * Fetches `url`, retrying what may succeed when tried again. `read` turns a 200 answer's body into its document;
   * when it throws RetryableBodyError (a body cut off, empty, not JSON) the URL is fetched again like after a stall.
   */
  async fetch<T>(
    url: string,
    signal?: AbortSignal,
    read?: (response: FetchedResponse) => T | Promise<T>,
  ): Promise<FetchedResponse<T>> {
    const maxAttempts = this.options.retries + 1;
    let lastError: RetryableError | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      if (attempt > 1) {
        this.stats.retries += 1;
        await sleep(this.backoffMs(attempt - 1, lastError?.retryAfterMs), undefined, { signal });
      }
      if (this.options.rateLimiter !== undefined) await this.options.rateLimiter.take(signal);
      signal?.throwIfAborted();
      try {
        const response: FetchedResponse<T> = { ...(await this.attempt(url, signal)), attempts: attempt };
        if (read !== undefined && response.status === 200) response.document = await read(response);
        return response;
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (error instanceof FinalError) throw new FetchError(url, error.message, attempt, undefined, error.hint);
        if (error instanceof RetryableBodyError) {
          lastError = new RetryableError(error.message, 200, undefined, error.hint);
          continue;
        }
        if (!(error instanceof RetryableError)) throw error;
        lastError = error;
      }
    }
    throw new FetchError(url, lastError?.message ?? 'unknown error', maxAttempts, lastError?.status, lastError?.hint);
  }

  /** The wait before a retry: the backoff, or longer when the server asked for it (up to retryAfterMaxMs). */
  private backoffMs(retry: number, retryAfterMs: number | undefined): number {
    const base = this.options.backoffBaseMs ?? 200;
    const max = this.options.backoffMaxMs ?? 10_000;
    const backoff = Math.random() * Math.min(max, base * 2 ** retry);
    if (retryAfterMs === undefined) return backoff;
    return Math.max(backoff, Math.min(retryAfterMs, this.options.retryAfterMaxMs ?? 120_000));
  }

  private async attempt(url: string, signal?: AbortSignal): Promise<Omit<FetchedResponse, 'attempts' | 'document'>> {
    this.stats.requests += 1;
    const { status, headers, body } = await this.exchange(url, signal);
    if (status >= 500 || status === 429) {
      throw new RetryableError(`HTTP ${status}`, status, parseRetryAfter(headers['retry-after'], Date.now()));
    }
    // Only a wanted body was kept, so only it is decoded: the empty stand-in for a discarded one (a 404 sent with
    // Content-Encoding: gzip) is no gzip stream, and what its encoding was matters to nobody.
    if (!bodyWanted(status)) return { status, headers, body };
    return { status, headers, body: await this.decode(body, headers['content-encoding']) };
  }

  /** One request and its whole response, within the attempt's deadline; rejects with RetryableError or FinalError. */
  private exchange(url: string, signal: AbortSignal | undefined): Promise<RawResponse> {
    const { origin } = urlParts(url);
    const tap = this.options.recorder?.begin(url, origin, this.requestHeaders);
    return new Promise((resolve, reject) => {
      const collector: ResponseCollector = new ResponseCollector(
        this.options.maxBytes,
        bodyWanted,
        (failure, response) => {
          clearTimeout(deadline);
          if (signal !== undefined) this.inFlight.get(signal)?.remove(collector);
          const error = failure === null ? null : this.failureError(failure);
          tap?.end(error?.message);
          if (error === null) resolve(response);
          else reject(error);
        },
        () => (this.#unsent -= 1),
        tap,
      );
      const deadline = setTimeout(() => collector.expire(), this.deadlineMs);
      if (signal !== undefined) this.track(signal, collector);
      this.#unsent += 1;
      try {
        this.dispatcher.dispatch(
          { origin, path: url.slice(origin.length), method: 'GET', headers: this.requestHeaders },
          collector,
        );
      } catch (error) {
        // Refused before undici took it (so the collector hears nothing of it).
        this.#unsent -= 1;
        clearTimeout(deadline);
        if (signal !== undefined) this.inFlight.get(signal)?.remove(collector);
        const failure = networkError(error);
        tap?.end(failure.message);
        reject(failure);
      }
    });
  }

  private get deadlineMs(): number {
    const deadline = this.options.attemptDeadlineMs ?? ATTEMPT_DEADLINE_FACTOR * this.options.timeoutMs;
    // Node fires a longer timer at once (with a warning): a --timeout of days would fail every request.
    return Math.min(deadline, MAX_TIMER_MS);
  }

  private track(signal: AbortSignal, collector: ResponseCollector): void {
    let inFlight = this.inFlight.get(signal);
    if (inFlight === undefined) {
      const exchanges = new InFlight();
      inFlight = exchanges;
      this.inFlight.set(signal, exchanges);
      signal.addEventListener('abort', () => exchanges.abortAll(signal.reason), { once: true });
    }
    inFlight.add(collector);
  }

  private failureError(failure: ExchangeFailure): Error {
    switch (failure.kind) {
      case 'too-large':
        return new FinalError(
          failure.declared !== null
            ? `the response is ${failure.declared} bytes, over the --max-bytes limit of ${this.options.maxBytes}`
            : `the response is over the --max-bytes limit of ${this.options.maxBytes} bytes`,
          'maxBytes',
        );
      case 'cut-off': {
        const { reason } = describeNetworkError(failure.error);
        return new RetryableError(`the body was cut off (${reason})`, failure.status);
      }
      case 'deadline': {
        const factor = this.options.attemptDeadlineMs === undefined ? ` (${ATTEMPT_DEADLINE_FACTOR} × --timeout)` : '';
        const what = failure.status >= 200 ? `the body of the HTTP ${failure.status} answer` : 'the response';
        const status = failure.status || undefined;
        return new RetryableError(`${what} did not complete within ${this.deadlineMs} ms${factor}`, status);
      }
      case 'network':
        return networkError(failure.error);
    }
  }

  /**
   * The body with its content codings undone. `Content-Encoding` lists them in the order they were applied
   * (RFC 9110 §8.4: `gzip, br` is gzip, then brotli), so they are undone from the last; each step is held to
   * --max-bytes. A coding this crawl cannot undo refuses the body before anything is decoded.
   */
  private async decode(raw: Buffer, encoding: string | undefined): Promise<Buffer> {
    // No bytes are no bytes in any encoding (a HEAD-like answer): the document reader then says the body is empty.
    if (raw.length === 0) return raw;
    const codings = (encoding ?? '')
      .split(',')
      .map((coding) => coding.trim().toLowerCase())
      .filter((coding) => coding !== '' && coding !== 'identity');
    const unknown = codings.find((coding) => !CONTENT_CODINGS.has(coding));
    if (unknown !== undefined) {
      const stacked = codings.length > 1 ? ` (of "${codings.join(', ')}")` : '';
      throw new FinalError(`the response uses the unsupported content encoding "${unknown}"${stacked}`, 'encoding');
    }
    let body = raw;
    for (const coding of codings.reverse()) body = await this.undo(body, coding);
    return body;
  }

  private async undo(raw: Buffer, name: string): Promise<Buffer> {
    const limits = { maxOutputLength: this.options.maxBytes };
    const sync = raw.length <= SYNC_DECODE_LIMIT;
    try {
      if (name === 'br') return sync ? zlib.brotliDecompressSync(raw, limits) : await brotli(raw, limits);
      if (name === 'deflate') return sync ? zlib.inflateSync(raw, limits) : await inflate(raw, limits);
      return sync ? zlib.gunzipSync(raw, limits) : await gunzip(raw, limits);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        const limit = this.options.maxBytes;
        throw new FinalError(`the decompressed response is over the --max-bytes limit of ${limit} bytes`, 'maxBytes');
      }
      throw new RetryableError(`the ${name} body could not be decompressed (${(error as Error).message})`);
    }
  }
}

/**
 * A failure before a complete response: retried, except a host name that DNS says does not exist (asking again
 * gives the same answer).
 */
function networkError(error: unknown): RetryableError | FinalError {
  const { reason, hint } = describeNetworkError(error);
  return hint === 'host' && errorCode(error) === 'ENOTFOUND'
    ? new FinalError(reason, hint)
    : new RetryableError(reason, undefined, undefined, hint);
}

function errorCode(error: unknown): string | undefined {
  const err = error as { code?: string; cause?: { code?: string } };
  return err.code ?? err.cause?.code;
}

function describeNetworkError(error: unknown): { reason: string; hint?: FetchHint } {
  switch (errorCode(error)) {
    case 'UND_ERR_HEADERS_TIMEOUT':
      return { reason: 'no response headers within the timeout' };
    case 'UND_ERR_BODY_TIMEOUT':
      return { reason: 'the body stalled past the timeout' };
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
      return { reason: 'the connection was reset' };
    case 'ECONNREFUSED':
      return { reason: 'the connection was refused', hint: 'refused' };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { reason: 'the host name could not be resolved', hint: 'host' };
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return { reason: 'the body was shorter or longer than its Content-Length' };
    default: {
      const err = error as { message?: string };
      return { reason: err.message ?? String(error) };
    }
  }
}
