/**
 * The tar format as far as cv-snapshot needs it (POSIX.1-1988 ustar, plus reading pax and GNU long names): 512-byte
 * blocks, one header block per entry, then the entry's bytes padded to a whole block, and two zero blocks at the end.
 *
 * Header fields (offset, length): name 0/100, mode 100/8, uid 108/8, gid 116/8, size 124/12, mtime 136/12,
 * chksum 148/8, typeflag 156/1, linkname 157/100, magic 257/6, version 263/2, uname 265/32, gname 297/32,
 * devmajor 329/8, devminor 337/8, prefix 345/155.
 */
import { ArchiveError } from '../util/errors.js';

export const BLOCK_SIZE = 512;
export const END_OF_ARCHIVE = Buffer.alloc(2 * BLOCK_SIZE);

const NAME_BYTES = 100;
const PREFIX_BYTES = 155;
/** Eleven octal digits: the largest size and time a ustar numeric field holds (8 GiB - 1, year 2242). */
export const MAX_OCTAL_11 = 0o77777777777;

/** Zero bytes that pad an entry of `size` bytes to a whole block. */
export function padding(size: number): Buffer {
  const rest = size % BLOCK_SIZE;
  return Buffer.alloc(rest === 0 ? 0 : BLOCK_SIZE - rest);
}

function writeOctal(block: Buffer, offset: number, width: number, value: number): void {
  const digits = value.toString(8).padStart(width - 1, '0');
  if (digits.length > width - 1) throw new RangeError(`${value} does not fit a ${width}-byte tar field`);
  block.write(`${digits}\0`, offset, width, 'ascii');
}

/**
 * Splits a path for ustar's `prefix` and `name` fields: `prefix/name`, cut at the first slash that leaves a name of
 * at most 100 bytes (a deterministic choice, as GNU tar makes it). Null when no cut fits.
 */
function splitUstarPath(path: Buffer): { prefix: Buffer; name: Buffer } | null {
  if (path.length <= NAME_BYTES) return { prefix: Buffer.alloc(0), name: path };
  for (let i = Math.max(1, path.length - NAME_BYTES - 1); i <= Math.min(PREFIX_BYTES, path.length - 2); i++) {
    if (path[i] === 0x2f) return { prefix: path.subarray(0, i), name: path.subarray(i + 1) };
  }
  return null;
}

/** The first at most `max` bytes of UTF-8 `bytes`, never cutting a character in two. */
function truncateUtf8(bytes: Buffer, max: number): Buffer {
  if (bytes.length <= max) return bytes;
  let end = max;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

export interface HeaderFields {
  /** UTF-8 path inside the archive; a directory's ends in `/`. */
  path: Buffer;
  type: '0' | '5' | 'x';
  size: number;
  mode: number;
  /** Seconds since 1970. */
  mtime: number;
}

/**
 * One ustar header block. uid/gid are 0, uname/gname empty, devmajor/devminor zero, so nothing of the machine
 * that packs reaches the archive. `path` must already fit (see `headerBlocks`).
 */
function ustarHeader(fields: HeaderFields, prefix: Buffer, name: Buffer): Buffer {
  if (fields.size > MAX_OCTAL_11) {
    throw new ArchiveError(
      `${fields.path.toString('utf8')} is ${fields.size} bytes, more than a ustar archive can hold (8 GiB); ` +
        'a snapshot file this large is not a vocabulary document, so check the snapshot directory.',
    );
  }
  const block = Buffer.alloc(BLOCK_SIZE);
  name.copy(block, 0);
  writeOctal(block, 100, 8, fields.mode);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, fields.size);
  writeOctal(block, 136, 12, fields.mtime);
  block.write(fields.type, 156, 1, 'ascii');
  block.write('ustar\x0000', 257, 8, 'ascii');
  writeOctal(block, 329, 8, 0);
  writeOctal(block, 337, 8, 0);
  prefix.copy(block, 345);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return block;
}

/** A pax record `"<length> <key>=<value>\n"`, whose length counts its own digits. */
function paxRecord(key: string, value: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(` ${key}=`, 'utf8'), value, Buffer.from('\n')]);
  let length = body.length + 1;
  while (String(length).length + body.length !== length) length = String(length).length + body.length;
  return Buffer.concat([Buffer.from(String(length), 'ascii'), body]);
}

/** Name of the pax header entry: fixed, so that nothing varying (such as the PID GNU tar puts there) is written. */
const PAX_HEADER_NAME = Buffer.from('././@PaxHeader', 'ascii');

/**
 * The header block(s) of one entry. A path that fits ustar's prefix/name split gets one plain ustar header. A path
 * that does not (a segment over 100 bytes, or a path over ~255 bytes) is preceded by a pax extended header holding
 * only `path`, with the entry's own mode and mtime and a fixed name: it depends on nothing but the path, so the
 * archive stays reproducible, and GNU tar, bsdtar and `extractArchive` all read it. The ustar name of such an entry
 * is the path cut to 100 bytes, which only readers without pax support would use.
 */
export function headerBlocks(fields: HeaderFields): Buffer[] {
  const split = splitUstarPath(fields.path);
  if (split !== null) return [ustarHeader(fields, split.prefix, split.name)];
  const record = paxRecord('path', fields.path);
  const paxFields: HeaderFields = { ...fields, path: PAX_HEADER_NAME, type: 'x', size: record.length };
  return [
    ustarHeader(paxFields, Buffer.alloc(0), PAX_HEADER_NAME),
    record,
    padding(record.length),
    ustarHeader(fields, Buffer.alloc(0), truncateUtf8(fields.path, NAME_BYTES)),
  ];
}

export interface ParsedHeader {
  /** The header's own path (prefix joined), before pax or GNU long names replace it. */
  path: string;
  type: string;
  size: number;
}

function field(block: Buffer, offset: number, length: number): Buffer {
  const bytes = block.subarray(offset, offset + length);
  const nul = bytes.indexOf(0);
  return nul === -1 ? bytes : bytes.subarray(0, nul);
}

/** Octal, or GNU's base-256 (high bit set) for values too large for octal. */
function readNumber(block: Buffer, offset: number, length: number): number {
  const first = block[offset] ?? 0;
  if ((first & 0x80) !== 0) {
    if ((first & 0x40) !== 0) return Number.NaN;
    let value = first & 0x3f;
    for (let i = 1; i < length; i++) value = value * 256 + (block[offset + i] ?? 0);
    return value;
  }
  const text = field(block, offset, length).toString('ascii').trim();
  return text === '' ? 0 : /^[0-7]+$/.test(text) ? parseInt(text, 8) : Number.NaN;
}

export function isZeroBlock(block: Buffer): boolean {
  for (const byte of block) if (byte !== 0) return false;
  return true;
}

/** Parses a header block; null when its checksum is wrong (a damaged archive, or not tar at all). */
export function parseHeader(block: Buffer): ParsedHeader | null {
  const stored = readNumber(block, 148, 8);
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK_SIZE; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  if (stored !== unsigned && stored !== signed) return null;
  const size = readNumber(block, 124, 12);
  if (!Number.isSafeInteger(size) || size < 0) return null;
  let path = field(block, 0, NAME_BYTES).toString('utf8');
  // Only POSIX ustar ("ustar\0" "00") has a prefix field; old GNU headers ("ustar  \0") keep other data there.
  if (block.toString('latin1', 257, 265) === 'ustar\x0000') {
    const prefix = field(block, 345, PREFIX_BYTES).toString('utf8');
    if (prefix !== '') path = `${prefix}/${path}`;
  }
  const typeByte = block[156] ?? 0;
  return { path, type: typeByte === 0 ? '0' : String.fromCharCode(typeByte), size };
}

/** The records of a pax extended header, e.g. `path` and `size`. */
export function parsePaxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    // Decimal digits only: Number() would also read `0x10`, `1e2` or an empty string (as 0).
    const digits = space === -1 ? '' : data.toString('ascii', offset, space);
    const length = /^[0-9]{1,9}$/.test(digits) ? Number(digits) : Number.NaN;
    if (!Number.isSafeInteger(length) || space >= offset + length || offset + length > data.length) {
      throw new ArchiveError('A pax extended header in the archive is malformed; the archive is damaged.');
    }
    const record = data.subarray(space + 1, offset + length - 1);
    const equals = record.indexOf(0x3d);
    // Each record is "<length> <key>=<value>\n".
    if (equals <= 0 || data[offset + length - 1] !== 0x0a) {
      throw new ArchiveError('A pax extended header in the archive is malformed; the archive is damaged.');
    }
    records.set(record.toString('utf8', 0, equals), record.toString('utf8', equals + 1));
    offset += length;
  }
  return records;
}
