/**
 * A response's bytes to text, bodies and header values alike. A body is read in the character set the response
 * gives: a byte order mark first, then the `charset` of Content-Type, then UTF-8 (RFC 8259 §8.1). A UTF-8 body is
 * checked to be valid UTF-8 rather than decoded with U+FFFD in place of what it cannot read: a mirror must not
 * change text silently.
 */
import { isUtf8 } from 'node:buffer';

/** Why a body could not be turned into text; `retryable` when fetching it again may help. */
export class BodyTextError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'BodyTextError';
  }
}

const CHARSET = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** The WHATWG encoding a Content-Type names (`utf-8`, `windows-1252`…), or undefined when it names none. */
function declaredEncoding(contentType: string | undefined): string | undefined {
  const match = contentType === undefined ? null : CHARSET.exec(contentType);
  const label = match === null ? '' : (match[1] ?? match[2] ?? '').trim();
  if (label === '') return undefined;
  const lower = label.toLowerCase();
  if (lower === 'utf-8' || lower === 'utf8') return 'utf-8';
  try {
    return new TextDecoder(label).encoding;
  } catch {
    throw new BodyTextError(`it declares the character set "${label}", which cannot be decoded`, false);
  }
}

function decodeUtf8(bytes: Buffer): string {
  if (!isUtf8(bytes)) {
    throw new BodyTextError('its body is not valid UTF-8 (nor declares another character set)', true);
  }
  return bytes.toString('utf8');
}

function decodeAs(encoding: string, bytes: Buffer): string {
  try {
    // A byte order mark of the encoding itself is dropped by the decoder.
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new BodyTextError(`its body is not valid ${encoding}, the character set it declares`, true);
  }
}

/** The encoding a body's first bytes show: a byte order mark, or the zero bytes of UTF-16 text (RFC 4627 §3). */
function sniffedEncoding(body: Buffer): string | undefined {
  if (body.length < 2) return undefined;
  const [a, b] = [body[0]!, body[1]!];
  if (a === 0xef && b === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (a === 0xff && b === 0xfe) return 'utf-16le';
  if (a === 0xfe && b === 0xff) return 'utf-16be';
  if (a === 0 && b !== 0) return 'utf-16be';
  if (a !== 0 && b === 0) return 'utf-16le';
  return undefined;
}

/** A body's text, and how its bytes differ from that text in UTF-8 (what the snapshot stores), when they do. */
export interface BodyText {
  text: string;
  /** `in windows-1252`, `with a UTF-8 byte order mark`: what a UTF-8 copy of the text leaves out. */
  recoded?: string;
}

/** The text of `body`, decoded as described above; throws BodyTextError. */
export function bodyText(body: Buffer, contentType: string | undefined): BodyText {
  const sniffed = sniffedEncoding(body);
  const encoding = sniffed ?? declaredEncoding(contentType) ?? 'utf-8';
  if (encoding === 'utf-8') {
    if (sniffed !== 'utf-8') return { text: decodeUtf8(body) };
    return { text: decodeUtf8(body.subarray(3)), recoded: 'with a UTF-8 byte order mark' };
  }
  const text = decodeAs(encoding, body);
  // ASCII text in an encoding that agrees with UTF-8 on it is the same bytes either way.
  if (encoding !== 'utf-16le' && encoding !== 'utf-16be' && !/[\u0080-\uffff]/.test(text)) return { text };
  return { text, recoded: `in ${encoding}` };
}

/**
 * A header value as the server meant it. HTTP sends bytes, and undici reads them as Latin-1; a server that puts a
 * non-ASCII URL in Location sends it as UTF-8, which read as Latin-1 would name another URL (`café` as `cafÃ©`).
 */
export function headerText(value: string): string {
  if (!/[\u0080-\u00ff]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : value;
}
