/**
 * Writing one answer: JSON:API or HTML body, ETag and If-None-Match, gzip/br on request, HEAD without body, and the
 * two faults that break a body on the wire (truncated, corrupt gzip).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { selectEncoding } from './negotiation.js';
import { etagMatches } from '../util/http-server.js';

export const JSON_API = 'application/vnd.api+json';
export const HTML = 'text/html; charset=utf-8';

export interface Reply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Empty for redirects and 304. */
  readonly body: string;
  readonly contentType?: string;
  /** Give the answer an ETag (a quoted hash of the uncompressed body) and honour If-None-Match. */
  readonly etag?: boolean;
}

export type BodyFault = 'truncated' | 'corrupt-gzip';

/** A gzip member header followed by a deflate block of the reserved type 3: every inflater rejects it. */
const CORRUPT_GZIP = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]), Buffer.alloc(24, 0xff)]);

function compress(body: Buffer, acceptEncoding: string | undefined): { payload: Buffer; encoding: string | null } {
  const encoding = selectEncoding(acceptEncoding);
  // Fast settings: the server shares the machine with the crawler it benchmarks.
  if (encoding === 'br') {
    const payload = brotliCompressSync(body, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 4, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
    });
    return { payload, encoding };
  }
  if (encoding === 'gzip') return { payload: gzipSync(body, { level: 4 }), encoding };
  return { payload: body, encoding: null };
}

/** Drops the connection with a TCP reset, as a crashed upstream would. */
function resetConnection(req: IncomingMessage): void {
  const socket = req.socket;
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

/**
 * An answer ready to go on the wire: everything costly (serialising, hashing, compressing) is done, so that a
 * simulated latency can run while it is being prepared, as on a server with its own CPUs.
 */
export type PreparedReply =
  | { readonly action: 'reset' }
  | {
      readonly action: 'send';
      readonly status: number;
      readonly headers: Record<string, string>;
      /** null: headers only (HEAD, 304). */
      readonly payload: Buffer | null;
      /** What the request log records. */
      readonly logged: number | string;
      readonly truncate: boolean;
    };

/** Prepares `reply`. A body fault on an answer without a body (HEAD, redirect, 304) becomes a reset. */
export function prepareReply(
  req: IncomingMessage,
  reply: Reply,
  options: { compress: boolean; fault: BodyFault | null },
): PreparedReply {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.contentType !== undefined) headers['Content-Type'] = reply.contentType;
  const body = Buffer.from(reply.body, 'utf8');
  if (reply.etag === true) {
    const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
    headers.ETag = etag;
    if (options.fault === null && etagMatches(req.headers['if-none-match'], etag)) {
      delete headers['Content-Type'];
      return { action: 'send', status: 304, headers, payload: null, logged: 304, truncate: false };
    }
  }
  const head = req.method === 'HEAD';
  if (options.fault !== null && (head || body.length === 0)) return { action: 'reset' };
  let payload: Buffer = body;
  if (options.fault === 'corrupt-gzip') {
    payload = CORRUPT_GZIP;
    headers['Content-Encoding'] = 'gzip';
  } else if (options.compress && body.length > 0) {
    const compressed = compress(body, req.headers['accept-encoding']);
    payload = compressed.payload;
    if (compressed.encoding !== null) headers['Content-Encoding'] = compressed.encoding;
  }
  headers['Content-Length'] = String(payload.length);
  const logged = options.fault ?? reply.status;
  return {
    action: 'send',
    status: reply.status,
    headers,
    payload: head ? null : payload,
    logged,
    truncate: options.fault === 'truncated',
  };
}

/** Puts a prepared answer on the wire; returns what the request log records. */
export function deliver(req: IncomingMessage, res: ServerResponse, prepared: PreparedReply): number | string {
  if (prepared.action === 'reset') {
    resetConnection(req);
    return 'reset';
  }
  res.writeHead(prepared.status, prepared.headers);
  const { payload } = prepared;
  if (payload === null) {
    res.end();
    return prepared.logged;
  }
  if (prepared.truncate) {
    // Content-Length promises the whole body; half of it arrives, then the connection ends.
    res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => res.socket?.destroy());
    return prepared.logged;
  }
  res.end(payload);
  return prepared.logged;
}
