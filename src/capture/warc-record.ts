/**
 * One WARC 1.1 record (ISO 28500:2017), written as its own gzip member (docs/capture.md#the-file): the header
 * fields, the block, and the two CRLFs that end a record. A gzip member per record is what lets an index give each
 * record's offset and length, and a reader start at any of them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';

export type WarcType = 'warcinfo' | 'request' | 'response' | 'metadata';

/** A record's fields beyond WARC-Type, WARC-Record-ID, WARC-Date and Content-Length, in the order written. */
export type WarcFields = ReadonlyArray<readonly [string, string]>;

const CRLF = Buffer.from('\r\n');
const END = Buffer.from('\r\n\r\n');

export function recordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/** A digest as WARC-Block-Digest and WARC-Payload-Digest give it, in the spelling warcio.js writes. */
export function sha256Digest(parts: readonly Buffer[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return `sha256:${hash.digest('hex')}`;
}

/** WARC-Date: UTC with milliseconds, which WARC 1.1 allows (section 5.4). */
function warcDate(date: Date): string {
  return date.toISOString();
}

/**
 * The record's bytes, gzipped as one member. A field value never holds a line break (the URLs, ids and digests
 * written here cannot), so the header cannot be split.
 */
export function warcMember(
  id: string,
  type: WarcType,
  date: Date,
  fields: WarcFields,
  contentType: string,
  block: readonly Buffer[],
): Buffer {
  let length = 0;
  for (const part of block) length += part.length;
  let head = `WARC/1.1\r\nWARC-Type: ${type}\r\nWARC-Record-ID: ${id}\r\nWARC-Date: ${warcDate(date)}\r\n`;
  for (const [name, value] of fields) head += `${name}: ${value}\r\n`;
  head += `Content-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`;
  return gzipSync(Buffer.concat([Buffer.from(head, 'utf8'), ...block, END], Buffer.byteLength(head) + length + 4));
}

/** `application/warc-fields`: one `name: value` line per field (WARC 1.1 section 6.4). */
export function warcFieldsBlock(fields: WarcFields): Buffer[] {
  return fields.map(([name, value]) => Buffer.concat([Buffer.from(`${name}: ${value}`, 'utf8'), CRLF]));
}
