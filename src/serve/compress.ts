/**
 * Compressed answers of `cv-snapshot serve`, as static hosts and CDNs send them: a text answer (a JSON:API document,
 * a catalogue page, its scripts and search index, CSS, SVG, Turtle, CSV …) of at least MIN_BYTES is sent with Brotli
 * or gzip when the request's Accept-Encoding takes one, and as it is otherwise, never encoded for a client that did
 * not ask. Every answer that could be encoded carries `Vary: Accept-Encoding`, so a cache keeps the two apart; an
 * encoded answer has its own ETag (the stored one with `-br` or `-gzip`), since its bytes differ. Encoding is
 * synchronous (no request holds a thread of libuv's pool, see snapshot-files.ts), and the encoded bytes of an answer
 * with an ETag are kept up to a byte budget, so a file is encoded once however often it is asked for.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

type Encoding = 'br' | 'gzip';

/** Below this an answer is sent as it is: a few hundred bytes gain nothing worth a header and the work. */
const MIN_BYTES = 1024;
/** Quality 5: several times faster than Brotli's default 11, and still smaller than gzip's best. */
const BROTLI_QUALITY = 5;

/** Media types that compress: text, JSON and XML of any kind, JavaScript. */
function isCompressible(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    type.endsWith('+json') ||
    type.endsWith('+xml') ||
    type === 'application/json' ||
    type === 'application/javascript' ||
    type === 'application/xml'
  );
}

/** The encoding to send for `header` (an Accept-Encoding): the one weighted highest, Brotli on a tie; or none. */
function chooseEncoding(header: string | undefined): Encoding | null {
  if (header === undefined) return null;
  const weights = new Map<string, number>();
  for (const item of header.split(',')) {
    const [token = '', ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    if (token === '') continue;
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(weight)) weights.set(token === 'x-gzip' ? 'gzip' : token, weight);
  }
  const weightOf = (encoding: Encoding): number => weights.get(encoding) ?? weights.get('*') ?? 0;
  const [br, gzip] = [weightOf('br'), weightOf('gzip')];
  if (br <= 0 && gzip <= 0) return null;
  return br >= gzip ? 'br' : 'gzip';
}

function encode(body: Buffer, encoding: Encoding): Buffer {
  if (encoding === 'gzip') return gzipSync(body);
  return brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

export interface Representation {
  readonly body: Buffer;
  readonly etag: string | undefined;
  /** Set when the body is encoded. */
  readonly encoding: Encoding | null;
  /** Whether the answer depends on Accept-Encoding (it would be encoded for a client that asks). */
  readonly varies: boolean;
}

export class Compression {
  private readonly cache = new Map<string, Buffer>();
  private cachedBytes = 0;

  constructor(private readonly budget = 32 * 1024 * 1024) {}

  /** The bytes to send for an answer of `contentType`, for a request whose Accept-Encoding is `accept`. */
  representation(
    body: Buffer,
    contentType: string,
    etag: string | undefined,
    accept: string | undefined,
  ): Representation {
    if (body.length < MIN_BYTES || !isCompressible(contentType)) return { body, etag, encoding: null, varies: false };
    const encoding = chooseEncoding(accept);
    if (encoding === null) return { body, etag, encoding, varies: true };
    const encodedEtag = etag?.replace(/"$/, `-${encoding}"`);
    const encoded = this.encoded(body, encoding, encodedEtag);
    // Bytes that no encoding makes smaller are sent as they are.
    if (encoded.length >= body.length) return { body, etag, encoding: null, varies: true };
    return { body: encoded, etag: encodedEtag, encoding, varies: true };
  }

  private encoded(body: Buffer, encoding: Encoding, key: string | undefined): Buffer {
    const cached = key === undefined ? undefined : this.cache.get(key);
    if (cached !== undefined) {
      // Most recently used goes last; the oldest is evicted first.
      this.cache.delete(key!);
      this.cache.set(key!, cached);
      return cached;
    }
    const encoded = encode(body, encoding);
    if (key !== undefined && encoded.length <= this.budget / 8) {
      this.cache.set(key, encoded);
      this.cachedBytes += encoded.length;
      for (const [oldKey, value] of this.cache) {
        if (this.cachedBytes <= this.budget) break;
        this.cache.delete(oldKey);
        this.cachedBytes -= value.length;
      }
    }
    return encoded;
  }
}
