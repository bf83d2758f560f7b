/**
 * Writing one answer of `cv-snapshot serve`: the snapshot's `_headers` rules for the request path (so the headers are
 * the ones Cloudflare Pages or Netlify send for the same tree), the JSON:API media type for generated documents,
 * ETag and If-None-Match for stored files, HEAD without a body, CORS with `--cors`.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorDocument, NO_SNIFF } from '../format/host-files.js';
import type { Compression } from './compress.js';
import { headersFor, type HeaderRule } from './headers-rules.js';
import { answerBytes } from './stored-json.js';
import { etagMatches } from '../util/http-server.js';

export const JSON_API = 'application/vnd.api+json';
export const ALLOW = 'GET, HEAD, OPTIONS';

/**
 * What a static host sends for a file no `_headers` rule types: every kind of file a snapshot holds, and what its
 * catalogue and exports may add. Scripts must be typed as scripts: with `nosniff`, which every answer carries, a
 * browser runs no script sent as `application/octet-stream`.
 */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.gif': 'image/gif',
  '.htm': 'text/html; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.ico': 'image/x-icon',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.jsonld': 'application/ld+json',
  '.map': 'application/json',
  '.md': 'text/markdown; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.nt': 'application/n-triples',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ttl': 'text/turtle; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.xml': 'application/xml',
};

export function mediaTypeOfFile(file: string): string {
  const name = file.slice(file.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return name === 'SHA256SUMS' ? 'text/plain; charset=utf-8' : 'application/octet-stream';
  return MEDIA_TYPES[name.slice(dot).toLowerCase()] ?? 'application/octet-stream';
}

export interface Answer {
  readonly status: number;
  readonly body: Buffer;
  /** Content-Type when no `_headers` rule sets one (files), or always (generated JSON:API documents). */
  readonly contentType: string;
  readonly forceContentType: boolean;
  readonly etag?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A generated JSON:API document; a 200 gets an ETag from its bytes, so clients can revalidate it. */
export function jsonApiAnswer(status: number, document: unknown, headers?: Record<string, string>): Answer {
  const body = answerBytes(document);
  return {
    status,
    body,
    contentType: JSON_API,
    forceContentType: true,
    ...(status === 200 ? { etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"` } : {}),
    ...(headers === undefined ? {} : { headers }),
  };
}

export function errorAnswer(status: number, title: string, detail: string, headers?: Record<string, string>): Answer {
  return jsonApiAnswer(status, JSON.parse(errorDocument(status, title, detail)), headers);
}

export interface SendContext {
  readonly rules: readonly HeaderRule[];
  readonly cors: boolean;
  readonly compression: Compression;
}

/** Adds `name` to the Vary header, whatever case `_headers` spelled it in. */
function addVary(headers: Record<string, string>, name: string): void {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === 'vary') ?? 'Vary';
  const present = headers[key]?.split(',').map((v) => v.trim().toLowerCase()) ?? [];
  if (!present.includes(name.toLowerCase()))
    headers[key] = headers[key] === undefined ? name : `${headers[key]}, ${name}`;
}

/** Sends `answer` for the request path `pathname`; returns the status sent. */
export function send(
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  answer: Answer,
  context: SendContext,
): number {
  const headers: Record<string, string> = {};
  let contentType: string | undefined;
  for (const { name, value } of headersFor(context.rules, pathname).values()) {
    if (name.toLowerCase() === 'content-type') contentType = value;
    else headers[name] = value;
  }
  headers['Content-Type'] = answer.forceContentType || contentType === undefined ? answer.contentType : contentType;
  if (answer.forceContentType && headers.Vary === undefined) headers.Vary = 'Accept';
  Object.assign(headers, answer.headers);
  // Whatever the snapshot's _headers says (an older snapshot's says nothing of it), no answer is sniffed.
  headers[NO_SNIFF[0]] = NO_SNIFF[1];
  if (context.cors) headers['Access-Control-Allow-Origin'] = '*';
  let status = answer.status;
  const sent = context.compression.representation(
    answer.body,
    headers['Content-Type'],
    answer.etag,
    req.headers['accept-encoding'],
  );
  if (sent.varies) addVary(headers, 'Accept-Encoding');
  if (sent.encoding !== null) headers['Content-Encoding'] = sent.encoding;
  let body: Buffer | null = sent.body;
  if (sent.etag !== undefined) {
    headers.ETag = sent.etag;
    if (status === 200 && etagMatches(req.headers['if-none-match'], sent.etag)) {
      status = 304;
      body = null;
      delete headers['Content-Type'];
      delete headers['Content-Encoding'];
    }
  }
  if (body !== null) headers['Content-Length'] = String(body.length);
  // setHeader rather than writeHead's object, so the request log can read what was sent.
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.writeHead(status);
  res.end(req.method === 'HEAD' || body === null ? undefined : body);
  return status;
}

/** OPTIONS: what the address allows, and the CORS preflight answer with --cors. */
export function sendOptions(req: IncomingMessage, res: ServerResponse, cors: boolean): number {
  const headers: Record<string, string> = { Allow: ALLOW, [NO_SNIFF[0]]: NO_SNIFF[1] };
  if (cors) {
    headers['Access-Control-Allow-Origin'] = '*';
    if (req.headers['access-control-request-method'] !== undefined) {
      headers['Access-Control-Allow-Methods'] = ALLOW;
      headers['Access-Control-Allow-Headers'] = req.headers['access-control-request-headers'] ?? 'Accept';
      headers['Access-Control-Max-Age'] = '86400';
    }
  }
  res.writeHead(204, headers);
  res.end();
  return 204;
}
