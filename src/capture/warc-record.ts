/**
 * One WARC 1.1 record (ISO 28500:2017), written as its own gzip member (docs/capture.md#the-file): the header
 * fields, the block, and the two CRLFs that end a record. A gzip member per record is what lets an index give each
 * record's offset and length, and a reader start at any of them.
 */
import { createHash, hash, randomUUID } from 'node:crypto';
import { constants, crc32, gzipSync } from 'node:zlib';

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
  if (parts.length === 1) return `sha256:${hash('sha256', parts[0]!)}`;
  const digest = createHash('sha256');
  for (const part of parts) digest.update(part);
  return `sha256:${digest.digest('hex')}`;
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
 * The record's header text, then `block` and the END of a record, as one gzip member of stored (uncompressed) deflate
 * blocks, in one allocation: valid gzip that costs a CRC-32 and a copy, and no compressor. Node's gzipSync sets up a
 * compressor per call, tens of microseconds even for a few hundred bytes, which is most of what a record costs when
 * its bytes do not compress: a request, or a response whose body is gzip or brotli already.
 */
function storedMember(head: string, block: readonly Buffer[], blockLength: number): Buffer {
  const headLength = Buffer.byteLength(head, 'utf8');
  const length = headLength + blockLength + END.length;
  const blocks = Math.max(1, Math.ceil(length / STORED_BLOCK));
  const member = Buffer.allocUnsafe(GZIP_HEADER.length + 5 * blocks + length + 8);
  GZIP_HEADER.copy(member, 0);
  // The record's bytes go where one stored block would hold them all, each block's 5-byte header written before it.
  const start = GZIP_HEADER.length + 5;
  let at = start + member.write(head, start, 'utf8');
  for (const part of block) at += part.copy(member, at);
  END.copy(member, at);
  const crc = crc32(member.subarray(start, start + length));
  // Room for the later blocks' headers: each block's bytes move up past the headers before it, the last block first.
  for (let n = blocks - 1; n > 0; n -= 1) {
    const from = start + n * STORED_BLOCK;
    member.copy(member, from + 5 * n, from, start + Math.min(length, (n + 1) * STORED_BLOCK));
  }
  for (let n = 0; n < blocks; n += 1) {
    const header = GZIP_HEADER.length + n * (STORED_BLOCK + 5);
    const size = Math.min(STORED_BLOCK, length - n * STORED_BLOCK);
    member[header] = n === blocks - 1 ? 1 : 0;
    member.writeUInt16LE(size, header + 1);
    member.writeUInt16LE(~size & 0xffff, header + 3);
  }
  const trailer = GZIP_HEADER.length + 5 * blocks + length;
  member.writeUInt32LE(crc >>> 0, trailer);
  member.writeUInt32LE(length % 2 ** 32, trailer + 4);
  return member;
}

/**
 * The record's bytes as one gzip member: compressed, or stored when they would not compress (`compress` false). A
 * field value never holds a line break (the URLs, ids and digests written here cannot), so the header cannot be
 * split.
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
  if (!compress) return storedMember(head, block, length);
  // The fastest level: a record of a few kilobytes costs about half the CPU of the default level, and its member is
  // about a hundredth larger.
  return gzipSync(Buffer.concat([Buffer.from(head, 'utf8'), ...block, END]), { level: constants.Z_BEST_SPEED });
}

/** `application/warc-fields`: one `name: value` line per field (WARC 1.1 section 6.4). */
export function warcFieldsBlock(fields: WarcFields): Buffer[] {
  return fields.map(([name, value]) => Buffer.concat([Buffer.from(`${name}: ${value}`, 'utf8'), CRLF]));
}
