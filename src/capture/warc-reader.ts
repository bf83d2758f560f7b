/**
 * Reads a `.warc.gz` of gzip members, one record each (docs/capture.md#the-file), as `verify` and `pack --format
 * wacz` need it: each record with its offset and length in the file, its header fields and its block. The file is
 * read a window at a time, so memory holds one record, not the file. Nothing is trusted: a member that is not
 * gzip, a checksum that does not match, a record without its WARC header end the reading with a WarcFormatError.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32, inflateRawSync } from 'node:zlib';

export class WarcFormatError extends Error {}

export interface WarcEntry {
  /** Where the record's gzip member starts in the file, and its length in bytes. */
  offset: number;
  length: number;
  /** WARC-Type and the other header fields, by lower-case name (the last of a repeated one). */
  fields: Map<string, string>;
  block: Buffer;
}

/** The first window read; doubled until a member fits, up to the largest record allowed. */
const FIRST_WINDOW = 1 << 20;

const FTEXT_FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;

/** The length of the gzip header at the start of `bytes`, or null when they do not start one. */
function gzipHeaderLength(bytes: Buffer): number | null {
  if (bytes.length < 10 || bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8) return null;
  const flags = bytes[3]!;
  let at = 10;
  if (flags & FEXTRA) {
    if (bytes.length < at + 2) return null;
    at += 2 + bytes.readUInt16LE(at);
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (flags & flag) {
      const end = bytes.indexOf(0, at);
      if (end < 0) return null;
      at = end + 1;
    }
  }
  if (flags & FTEXT_FHCRC) at += 2;
  return at <= bytes.length ? at : null;
}

/** The WARC header fields and block of one record's bytes. */
function parseRecord(bytes: Buffer, where: string): { fields: Map<string, string>; block: Buffer } {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0 || !bytes.subarray(0, 9).toString('latin1').startsWith('WARC/1.')) {
    throw new WarcFormatError(`${where} is not a WARC record (no WARC/1.x header).`);
  }
  const fields = new Map<string, string>();
  for (const line of bytes.toString('utf8', 0, end).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const length = Number(fields.get('content-length'));
  const start = end + 4;
  if (!Number.isSafeInteger(length) || length < 0 || start + length > bytes.length) {
    throw new WarcFormatError(`${where} has a Content-Length its block does not have.`);
  }
  return { fields, block: bytes.subarray(start, start + length) };
}

/** Every record of the file at `file`, in order; `maxRecordBytes` bounds one member, compressed and not. */
export function* readWarc(file: string, maxRecordBytes: number): Generator<WarcEntry> {
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    let offset = 0;
    let window = Buffer.alloc(0);
    while (offset < size) {
      const where = `the record at byte ${offset}`;
      let want = Math.min(FIRST_WINDOW, size - offset);
      for (;;) {
        if (window.length < want) window = Buffer.allocUnsafe(want);
        const got = readSync(fd, window, 0, want, offset);
        const bytes = window.subarray(0, got);
        // Whether a larger window may hold what this one cut off.
        const canGrow = got === want && want < size - offset && want < maxRecordBytes;
        const grow = (): void => {
          want = Math.min(want * 2, size - offset, maxRecordBytes);
        };
        const header = gzipHeaderLength(bytes);
        if (header === null && canGrow) {
          grow();
          continue;
        }
        if (header === null) throw new WarcFormatError(`${where} is not a gzip member.`);
        let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
        try {
          inflated = inflateRawSync(bytes.subarray(header), { info: true, maxOutputLength: maxRecordBytes }) as never;
        } catch (error) {
          if (canGrow) {
            grow();
            continue;
          }
          throw new WarcFormatError(`${where} does not decompress (${(error as Error).message}).`);
        }
        const end = header + inflated.engine.bytesWritten;
        if (end + 8 > got && canGrow) {
          grow();
          continue;
        }
        if (end + 8 > got) throw new WarcFormatError(`${where} is cut short.`);
        const record = inflated.buffer;
        if (bytes.readUInt32LE(end) !== crc32(record) || bytes.readUInt32LE(end + 4) !== record.length % 2 ** 32) {
          throw new WarcFormatError(`${where} does not match its gzip checksum.`);
        }
        yield { offset, length: end + 8, ...parseRecord(record, where) };
        offset += end + 8;
        break;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The one record that `bytes` hold, as an index gives its offset and length: a whole gzip member, nothing after it.
 * Throws WarcFormatError otherwise.
 */
export function recordIn(bytes: Buffer, where: string, maxRecordBytes: number): Omit<WarcEntry, 'offset' | 'length'> {
  const header = gzipHeaderLength(bytes);
  if (header === null) throw new WarcFormatError(`${where} is not a gzip member.`);
  let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    inflated = inflateRawSync(bytes.subarray(header), { info: true, maxOutputLength: maxRecordBytes }) as never;
  } catch (error) {
    throw new WarcFormatError(`${where} does not decompress (${(error as Error).message}).`);
  }
  const end = header + inflated.engine.bytesWritten;
  if (end + 8 !== bytes.length) throw new WarcFormatError(`${where} is not exactly one gzip member.`);
  const record = inflated.buffer;
  if (bytes.readUInt32LE(end) !== crc32(record) || bytes.readUInt32LE(end + 4) !== record.length % 2 ** 32) {
    throw new WarcFormatError(`${where} does not match its gzip checksum.`);
  }
  return parseRecord(record, where);
}
