/**
 * One WARC 1.1 record (ISO 28500:2017), written as its own gzip member (docs/capture.md#the-file): the header
 * fields, the block, and the two CRLFs that end a record. A gzip member per record is what lets an index give each
 * record's offset and length, and a reader start at any of them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { crc32, gzipSync } from 'node:zlib';

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

/** A gzip header with no name and no time, from a Unix system (as `gzip -n` writes it). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
/** The most a stored deflate block holds. */
const STORED_BLOCK = 0xffff;

/**
 * `bytes` as a gzip member of stored (uncompressed) deflate blocks: valid gzip that costs a CRC-32 and no
 * compressor. Node's gzipSync sets up a compressor per call, some 40 µs even for a few hundred bytes: for the
 * small request records that was most of the capture's cost.
 */
function storedMember(bytes: Buffer): Buffer {
  const parts: Buffer[] = [GZIP_HEADER];
  for (let at = 0; at < bytes.length || at === 0; at += STORED_BLOCK) {
    const chunk = bytes.subarray(at, at + STORED_BLOCK);
    const block = Buffer.alloc(5);
    block[0] = at + STORED_BLOCK >= bytes.length ? 1 : 0;
    block.writeUInt16LE(chunk.length, 1);
    block.writeUInt16LE(~chunk.length & 0xffff, 3);
    parts.push(block, chunk);
    if (bytes.length === 0) break;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(bytes) >>> 0, 0);
  trailer.writeUInt32LE(bytes.length % 2 ** 32, 4);
  parts.push(trailer);
  return Buffer.concat(parts);
}

/**
 * The record's bytes as one gzip member, compressed or stored. A field value never holds a line break (the URLs,
 * ids and digests written here cannot), so the header cannot be split.
 */
export function warcMember(
  id: string,
  type: WarcType,
  date: Date,
  fields: WarcFields,
  contentType: string,
  block: readonly Buffer[],
  compress = true,
): Buffer {
  let length = 0;
  for (const part of block) length += part.length;
  let head = `WARC/1.1\r\nWARC-Type: ${type}\r\nWARC-Record-ID: ${id}\r\nWARC-Date: ${warcDate(date)}\r\n`;
  for (const [name, value] of fields) head += `${name}: ${value}\r\n`;
  head += `Content-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`;
  const record = Buffer.concat([Buffer.from(head, 'utf8'), ...block, END], Buffer.byteLength(head) + length + 4);
  return compress ? gzipSync(record) : storedMember(record);
}

/** `application/warc-fields`: one `name: value` line per field (WARC 1.1 section 6.4). */
export function warcFieldsBlock(fields: WarcFields): Buffer[] {
  return fields.map(([name, value]) => Buffer.concat([Buffer.from(`${name}: ${value}`, 'utf8'), CRLF]));
}
