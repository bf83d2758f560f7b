/**
 * One HTTP exchange on undici's dispatch API, collected into a status, headers and the raw body. The request API
 * wraps every response in a Readable stream and an async iterator; for documents of a few kilobytes that wrapping
 * cost more CPU than receiving them, so the fetcher collects the chunks itself. Bodies that are not wanted (those
 * of redirects and errors: only the status is read from them) are read and dropped, so that the connection stays
 * reusable, up to DISCARD_LIMIT bytes: past that the connection is closed instead, so that a body that never ends
 * cannot hold the crawl.
 */
import type { Dispatcher } from 'undici';
import type { ExchangeTap } from '../capture/exchange-tap.js';

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Undecoded body; empty when it was not kept. */
  body: Buffer;
}

/** Why an exchange failed, for the fetcher to turn into a retry or a final error. */
export type ExchangeFailure =
  | { kind: 'network'; error: unknown }
  | { kind: 'cut-off'; error: unknown; status: number }
  | { kind: 'too-large'; declared: number | null }
  /** The exchange ran past its deadline (expire()) before the response was complete. */
  | { kind: 'deadline'; status: number };

const EMPTY = Buffer.alloc(0);

/** Bytes of an unwanted body read (to keep the connection) before the connection is closed instead. */
const DISCARD_LIMIT = 64 * 1024;

export class ResponseCollector implements Dispatcher.DispatchHandler {
  /** Its neighbours in the list of exchanges in flight (InFlight). */
  previous: ResponseCollector | undefined;
  next: ResponseCollector | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #abortReason: unknown;
  #status = 0;
  #headers: Record<string, string> = {};
  #keep = false;
  #chunks: Buffer[] = [];
  #size = 0;
  #tooLarge: ExchangeFailure | undefined;
  #discarded = 0;
  #expired = false;
  #settled = false;
  #sent = false;

  constructor(
    private readonly maxBytes: number,
    /** Whether the body of a response with this status is wanted. */
    private readonly wanted: (status: number) => boolean,
    private readonly settle: (failure: ExchangeFailure | null, response: RawResponse) => void,
    /**
     * Called once: when undici writes the request to its connection, or when the exchange ends without that (it
     * failed to connect, or was aborted first).
     */
    private readonly sent: () => void,
    /** Told the exchange as it arrives, bytes as received (`crawl --warc`, docs/capture.md). */
    private readonly tap?: ExchangeTap,
  ) {}

  /** Stops the exchange (the crawl was aborted); it then fails as a network error. */
  abort(reason: unknown): void {
    if (this.#controller !== undefined) this.#controller.abort(reason as Error);
    else this.#abortReason = reason;
  }

  /** Stops an exchange that has run out of time; it then fails with the 'deadline' kind. */
  expire(): void {
    if (this.#settled) return;
    this.#expired = true;
    this.abort(new Error('the attempt ran past its deadline'));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#markSent();
    this.#controller = controller;
    if (this.#abortReason !== undefined) controller.abort(this.#abortReason as Error);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
    statusMessage?: string,
  ): void {
    this.tap?.response(statusCode, statusMessage ?? '', controller.rawHeaders, headers);
    this.#status = statusCode;
    const collected: Record<string, string> = {};
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined) collected[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    this.#headers = collected;
    this.#keep = this.wanted(statusCode);
    // Informational answers (1xx) are followed by the real one.
    if (statusCode < 200) return;
    const declared = Number(collected['content-length']);
    if (this.#keep && Number.isFinite(declared) && declared > this.maxBytes) {
      this.tap?.truncated('length');
      this.#tooLarge = { kind: 'too-large', declared };
      controller.abort(new Error('over --max-bytes'));
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.tap?.data(chunk);
    if (!this.#keep) {
      this.#discarded += chunk.length;
      // Its status is all that is read from this answer: a long body is not worth reading to keep the connection.
      if (this.#discarded > DISCARD_LIMIT && this.#status >= 200) {
        this.tap?.truncated('length');
        controller.abort(new Error('unwanted body too long'));
      }
      return;
    }
    this.#size += chunk.length;
    if (this.#size > this.maxBytes) {
      this.tap?.truncated('length');
      this.#tooLarge = { kind: 'too-large', declared: null };
      this.#chunks = [];
      controller.abort(new Error('over --max-bytes'));
      return;
    }
    this.#chunks.push(chunk);
  }

  /** Whether the request is out: undici starts it (onRequestStart) just before writing it to the socket. */
  #markSent(): void {
    if (this.#sent) return;
    this.#sent = true;
    this.sent();
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    const chunks = this.#chunks;
    const body = chunks.length === 0 ? EMPTY : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size);
    this.#chunks = [];
    this.settle(null, { status: this.#status, headers: this.#headers, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#markSent();
    if (this.#settled) return;
    this.#settled = true;
    this.#chunks = [];
    if (this.#status >= 200) this.tap?.truncated(this.#expired ? 'time' : 'disconnect');
    // A dropped body that breaks off changes nothing: the status is all that is read from such an answer.
    if (this.#status >= 200 && !this.#keep) {
      this.settle(null, { status: this.#status, headers: this.#headers, body: EMPTY });
      return;
    }
    const failure: ExchangeFailure =
      this.#tooLarge ??
      (this.#expired
        ? { kind: 'deadline', status: this.#status }
        : this.#status >= 200
          ? { kind: 'cut-off', error, status: this.#status }
          : { kind: 'network', error });
    this.settle(failure, { status: this.#status, headers: this.#headers, body: EMPTY });
  }
}

/**
 * The exchanges in flight under one abort signal, to stop them all when it aborts: a list linked through the
 * collectors themselves. (A Set, the obvious choice, kept its deleted collectors reachable long enough for the
 * garbage collector to move them, with their response headers, to the old generation: 3.5 KB a document, which made
 * the old generation's collections several times as frequent.)
 */
export class InFlight {
  #first: ResponseCollector | undefined;

  add(collector: ResponseCollector): void {
    collector.next = this.#first;
    if (this.#first !== undefined) this.#first.previous = collector;
    this.#first = collector;
  }

  remove(collector: ResponseCollector): void {
    const { previous, next } = collector;
    if (previous !== undefined) previous.next = next;
    else if (this.#first === collector) this.#first = next;
    else return; // Not in the list (removed before).
    if (next !== undefined) next.previous = previous;
    collector.previous = undefined;
    collector.next = undefined;
  }

  /** Stops every exchange in the list, and empties it. */
  abortAll(reason: unknown): void {
    let collector = this.#first;
    this.#first = undefined;
    while (collector !== undefined) {
      const next = collector.next;
      collector.previous = undefined;
      collector.next = undefined;
      collector.abort(reason);
      collector = next;
    }
  }
}
