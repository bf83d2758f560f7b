/**
 * A 200 answer's body to a JSON value. What can go wrong decides what happens next:
 *
 * - HTML (the browsable page) or another type that is not JSON: a wrong address, said at once (NotJsonError);
 * - a body that is cut off, empty, not valid JSON or not valid text in its character set, although it is sent as
 *   JSON: fetched again like a stall (RetryableBodyError), since a connection closed early looks just like it;
 * - a body that can never be stored (nested too deep, in a character set that cannot be decoded):
 *   UnusableDocumentError, at once.
 */
import { NotJsonError, UnusableDocumentError, type FetchHint } from '../errors.js';
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

const WITHOUT_IT = 'With --allow-partial the snapshot is published without it and lists it as missing.';

/** `response` is the fetcher's answer (its headers and decoded body); the fetcher calls this, never the reverse. */
export function readDocument(url: string, response: { headers: Record<string, string>; body: Buffer }): unknown {
  const type = response.headers['content-type'];
  if (type !== undefined && /text\/html/i.test(type)) {
    throw new NotJsonError(url, `it sent ${type}, the browsable HTML page`);
  }
  // Sent as JSON (or with no type at all): a body that does not read is more likely cut off than wrong.
  const sentAsJson = type === undefined || /json/i.test(type);
  let text: string;
  try {
    text = bodyText(response.body, type);
  } catch (error) {
    if (!(error instanceof BodyTextError)) throw error;
    if (!error.retryable) throw new UnusableDocumentError(url, error.message, WITHOUT_IT, { cause: error });
    if (!sentAsJson) throw new NotJsonError(url, `it sent ${type}, and ${error.message}`, { cause: error });
    throw new RetryableBodyError(error.message, 'text');
  }
  try {
    return parseJson(text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) {
      throw new UnusableDocumentError(
        url,
        error.message,
        `CV API documents nest fewer than 10 levels; this one was refused, not stored. ${WITHOUT_IT}`,
        { cause: error },
      );
    }
    const detail = text.trim() === '' ? 'its body is empty' : `its body is not valid JSON: ${(error as Error).message}`;
    if (!sentAsJson) throw new NotJsonError(url, `it sent ${type}, and ${detail}`, { cause: error });
    throw new RetryableBodyError(detail);
  }
}
