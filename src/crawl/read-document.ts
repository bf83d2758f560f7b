/**
 * A 200 answer's body to a JSON value. What can go wrong decides what happens next:
 *
 * - HTML (the browsable page) or another type that is not JSON: a wrong address, said at once (NotJsonError);
 * - a body that is cut off, empty, not valid JSON or not valid text in its character set, although it is sent as
 *   JSON: fetched again like a stall (RetryableBodyError), since a connection closed early looks just like it;
 * - a body that can never be stored (nested too deep, in a character set that cannot be decoded):
 *   UnusableDocumentError, at once.
 *
 * `readBody` says so as data (a worker thread sends it to the main thread as it is); `readDocument` throws it.
 */
import { NotJsonError, UnusableDocumentError, type FetchHint } from '../util/errors.js';
import { JsonTooDeepError, parseJson } from '../json/parse-json.js';
import { BodyTextError, bodyText } from './body-text.js';

/** A body that may read fine when it is fetched again; the fetcher retries it with the same backoff as a stall. */
export class RetryableBodyError extends Error {
  constructor(
    message: string,
    readonly hint: FetchHint = 'retry',
  ) {
    super(message);
    this.name = 'RetryableBodyError';
  }
}

/** Why a body does not read: `retry` fetches it again, the others end its URL. */
export type ReadFailure =
  | { kind: 'not-json'; detail: string }
  | { kind: 'unusable'; detail: string; hint: string }
  | { kind: 'retry'; detail: string; hint: FetchHint };

const WITHOUT_IT = 'With --allow-partial the snapshot is published without it and lists it as missing.';

/** The documents whose body was not in UTF-8 as the snapshot stores it: how it was sent instead. */
const recodedBodies = new WeakMap<object, string>();

/**
 * How the body `json` was read from was sent, when its bytes differ from the UTF-8 the snapshot stores (`in
 * windows-1252`, `with a UTF-8 byte order mark`); undefined when they do not, or when `json` was not read here.
 */
export function recodedBody(json: unknown): string | undefined {
  return typeof json === 'object' && json !== null ? recodedBodies.get(json) : undefined;
}

/** The parsed body, or why it does not read. */
export function readBody(response: {
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}): { json: unknown } | { failure: ReadFailure } {
  const type = response.headers['content-type'];
  if (type !== undefined && /text\/html/i.test(type)) {
    return { failure: { kind: 'not-json', detail: `it sent ${type}, the browsable HTML page` } };
  }
  // Sent as JSON (or with no type at all): a body that does not read is more likely cut off than wrong.
  const sentAsJson = type === undefined || /json/i.test(type);
  let text: string;
  let recoded: string | undefined;
  try {
    ({ text, recoded } = bodyText(response.body, type));
  } catch (error) {
    if (!(error instanceof BodyTextError)) throw error;
    if (!error.retryable) return { failure: { kind: 'unusable', detail: error.message, hint: WITHOUT_IT } };
    if (!sentAsJson) return { failure: { kind: 'not-json', detail: `it sent ${type}, and ${error.message}` } };
    return { failure: { kind: 'retry', detail: error.message, hint: 'text' } };
  }
  try {
    const json = parseJson(text);
    if (recoded !== undefined && typeof json === 'object' && json !== null) recodedBodies.set(json, recoded);
    return { json };
  } catch (error) {
    if (error instanceof JsonTooDeepError) {
      const hint = `CV API documents nest fewer than 10 levels; this one was refused, not stored. ${WITHOUT_IT}`;
      return { failure: { kind: 'unusable', detail: error.message, hint } };
    }
    const detail = text.trim() === '' ? 'its body is empty' : `its body is not valid JSON: ${(error as Error).message}`;
    if (!sentAsJson) return { failure: { kind: 'not-json', detail: `it sent ${type}, and ${detail}` } };
    return { failure: { kind: 'retry', detail, hint: 'retry' } };
  }
}

/** The error that a read failure of `url` is. */
export function readError(url: string, failure: ReadFailure): Error {
  switch (failure.kind) {
    case 'not-json':
      return new NotJsonError(url, failure.detail);
    case 'unusable':
      return new UnusableDocumentError(url, failure.detail, failure.hint);
    case 'retry':
      return new RetryableBodyError(failure.detail, failure.hint);
  }
}

/** `response` is the fetcher's answer (its headers and decoded body); the fetcher calls this, never the reverse. */
export function readDocument(url: string, response: { headers: Record<string, string>; body: Buffer }): unknown {
  const read = readBody(response);
  if ('failure' in read) throw readError(url, read.failure);
  return read.json;
}
