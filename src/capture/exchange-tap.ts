/**
 * What the fetcher tells a recorder about one HTTP exchange (one attempt: a retry is an exchange of its own), as it
 * happens: the response's head as undici parsed it (status, reason phrase, the raw header lines) and the body's
 * chunks as they arrive, which undici hands over with the chunked transfer coding removed and any content coding
 * kept. Nothing here is decoded.
 */
export type TruncatedReason = 'length' | 'time' | 'disconnect';

export interface ExchangeTap {
  /**
   * The response's head; called again when an informational (1xx) answer came first. `rawHeaders` is undici's
   * controller's (names and values in turn, as received); `headers` the parsed ones, for a dispatcher that gives none.
   */
  response(status: number, reason: string, rawHeaders: unknown, headers: Record<string, unknown>): void;
  data(chunk: Buffer): void;
  /** The body was not read to its end: cut off past a size limit, a deadline, or by the other side. */
  truncated(reason: TruncatedReason): void;
  /** The exchange is over; `failure` says why it failed, when it did (with or without a response). */
  end(failure?: string): void;
}

export interface ExchangeRecorder {
  /**
   * Starts recording a GET of `url` (whose origin, as URL gives it, is `origin`) sent with `headers` (the same object
   * for every request of a fetcher).
   */
  begin(url: string, origin: string, headers: Readonly<Record<string, string>>): ExchangeTap;
}
