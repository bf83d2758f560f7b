/**
 * `crawl --warc` (docs/capture.md): every exchange of the crawl recorded as it ends, as a `request` record and its
 * `response` record, or a `metadata` record saying why no response came. The request is written as undici writes it
 * (request line, `host`, `connection`, then the fetcher's headers), except that the value of every header given with
 * `--header` is replaced by `***`: the capture holds no credential. The response is written as received: the status
 * code and reason phrase, every header line with its name as sent, and the body with its content coding.
 */
import type { ExchangeRecorder, ExchangeTap, TruncatedReason } from './exchange-tap.js';
import type { RecordSink } from './capture-file.js';
import { recordId, sha256Digest, warcFieldsBlock, warcMember, type WarcFields } from './warc-record.js';

/** What a header given with --header is recorded as, in the request records and the warcinfo record alike. */
const REDACTED = '***';

export interface RecorderSettings {
  /** Names (lower case) of the headers whose values are secret: those given with --header. */
  secret: ReadonlySet<string>;
  /** The real time now (the capture records when each exchange happened, whatever SOURCE_DATE_EPOCH says). */
  now: () => Date;
  /** The record ID of the file's warcinfo record, which every record refers to. */
  warcinfo: string;
}

/** Writes the file's first record, warcinfo, with `info` (the tool, its version, the crawl's options). */
export function writeWarcinfo(file: RecordSink, date: Date, info: WarcFields): string {
  const id = recordId();
  const fields: WarcFields = [['WARC-Filename', file.name]];
  file.append([warcMember(id, 'warcinfo', date, fields, 'application/warc-fields', warcFieldsBlock(info))]);
  return id;
}

const COLON = Buffer.from(': ');
const CRLF = Buffer.from('\r\n');
const HTTP_REQUEST = 'application/http;msgtype=request';
const HTTP_RESPONSE = 'application/http;msgtype=response';

export class CaptureRecorder implements ExchangeRecorder {
  /** The request's header lines after `host`, as last written, and the headers they are of. */
  #requestLines = { of: {} as Readonly<Record<string, string>>, text: '' };

  constructor(
    private readonly file: RecordSink,
    private readonly settings: RecorderSettings,
  ) {}

  begin(url: string, origin: string, headers: Readonly<Record<string, string>>): ExchangeTap {
    // The request line's target and the host header, as undici writes them, from the fetcher's parse of the URL.
    const host = origin.slice(origin.indexOf('//') + 2);
    const head = `GET ${url.slice(origin.length)} HTTP/1.1\r\nhost: ${host}\r\n${this.#headerLines(headers)}`;
    return new Exchange(this, url, head);
  }

  /** The header lines after `host`, secrets redacted; built once for the fetcher's one object of headers. */
  #headerLines(headers: Readonly<Record<string, string>>): string {
    if (this.#requestLines.of === headers) return this.#requestLines.text;
    let lines = 'connection: keep-alive\r\n';
    for (const [name, value] of Object.entries(headers)) {
      lines += `${name}: ${this.settings.secret.has(name.toLowerCase()) ? REDACTED : value}\r\n`;
    }
    this.#requestLines = { of: headers, text: `${lines}\r\n` };
    return this.#requestLines.text;
  }

  /** Writes one exchange's records, request first. */
  write(exchange: Exchange, failure: string | undefined): void {
    const { url } = exchange;
    const request = [Buffer.from(exchange.request, 'latin1')];
    const requestId = recordId();
    const answerId = recordId();
    const common: WarcFields = [
      ['WARC-Target-URI', url],
      ['WARC-Warcinfo-ID', this.settings.warcinfo],
    ];
    // Requests are small and alike: stored rather than compressed (warc-record.ts), for the CPU.
    const requestRecord = warcMember(
      requestId,
      'request',
      exchange.sent,
      [...common, ['WARC-Concurrent-To', answerId], ['WARC-Block-Digest', sha256Digest(request)]],
      HTTP_REQUEST,
      request,
      false,
    );
    const head = exchange.head;
    if (head === undefined) {
      const block = warcFieldsBlock([['failure', failure ?? 'no response']]);
      const fields: WarcFields = [...common, ['WARC-Refers-To', requestId], ['WARC-Block-Digest', sha256Digest(block)]];
      const failed = warcMember(answerId, 'metadata', this.settings.now(), fields, 'application/warc-fields', block);
      this.file.append([requestRecord, failed]);
      return;
    }
    const body = exchange.chunks;
    // Digested and copied into the record part by part: a copy of the whole would cost more than it saves.
    const block = [head, ...body];
    const truncated = exchange.cut ?? (failure === undefined ? undefined : 'unspecified');
    const fields: WarcFields = [
      ...common,
      ['WARC-Concurrent-To', requestId],
      ['WARC-Payload-Digest', sha256Digest(body)],
      ['WARC-Block-Digest', sha256Digest(block)],
      ...(truncated === undefined ? [] : ([['WARC-Truncated', truncated]] as const)),
    ];
    // A body in gzip or brotli does not compress again: its record is stored, for the CPU.
    const response = warcMember(answerId, 'response', exchange.received, fields, HTTP_RESPONSE, block, !exchange.coded);
    this.file.append([requestRecord, response]);
  }

  now(): Date {
    return this.settings.now();
  }
}

/** One exchange being recorded: what has arrived so far. */
class Exchange implements ExchangeTap {
  readonly sent: Date;
  received: Date;
  /** The status line and header lines, with the blank line that ends them. */
  head: Buffer | undefined;
  /** Whether the body has a content coding (gzip, br…). */
  coded = false;
  chunks: Buffer[] = [];
  cut: TruncatedReason | undefined;
  #ended = false;

  constructor(
    private readonly recorder: CaptureRecorder,
    readonly url: string,
    /** The request as it was sent: request line, header lines and the blank line that ends them. */
    readonly request: string,
  ) {
    this.sent = recorder.now();
    this.received = this.sent;
  }

  response(status: number, reason: string, rawHeaders: unknown, headers: Record<string, unknown>): void {
    this.received = this.recorder.now();
    const parts: Buffer[] = [Buffer.from(`HTTP/1.1 ${status} ${reason}\r\n`, 'latin1')];
    for (const [name, value] of headerLines(rawHeaders, headers)) parts.push(name, COLON, value, CRLF);
    parts.push(CRLF);
    this.head = Buffer.concat(parts);
    this.coded = contentCoded(headers);
    this.chunks = [];
  }

  data(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  truncated(reason: TruncatedReason): void {
    this.cut ??= reason;
  }

  end(failure?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.recorder.write(this, failure);
    this.chunks = [];
  }
}

/** Whether the headers name a content coding other than `identity`. */
function contentCoded(headers: Record<string, unknown>): boolean {
  for (const name in headers) {
    if (name.toLowerCase() !== 'content-encoding') continue;
    const coding = String(headers[name]).trim().toLowerCase();
    return coding !== '' && coding !== 'identity';
  }
  return false;
}

const bytes = (value: unknown): Buffer => (Buffer.isBuffer(value) ? value : Buffer.from(String(value), 'latin1'));

/**
 * The response's header lines as received: undici's raw list (names and values in turn, Buffers on a plain
 * connection); failing that, the parsed headers, each value of a repeated one on a line of its own.
 */
function headerLines(raw: unknown, parsed: Record<string, unknown>): Array<[Buffer, Buffer]> {
  const lines: Array<[Buffer, Buffer]> = [];
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) lines.push([bytes(raw[i]), bytes(raw[i + 1])]);
    return lines;
  }
  for (const [name, value] of Object.entries(parsed)) {
    for (const one of Array.isArray(value) ? value : [value])
      if (one !== undefined) lines.push([bytes(name), bytes(one)]);
  }
  return lines;
}
