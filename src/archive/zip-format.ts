/**
 * The ZIP format (PKWARE APPNOTE 6.3) as a WACZ needs it (docs/capture.md#wacz): entries written stored (a WARC is
 * gzip already; the index and pages are small), each with its CRC-32 and sizes in its local header, so that every
 * reader, streaming ones included, can read it; names in UTF-8 (flag bit 11); one time for every entry. No ZIP64:
 * an entry or archive of 4 GiB or more is refused with a sentence. The reader lists the central directory and finds
 * each entry's data, for `verify`.
 */
import { readSync } from 'node:fs';

const ZIP_LIMIT = 0xffff_ffff;

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;
const VERSION = 20;
/** Version made by: 3 (Unix) in the high byte, so that the external attributes hold a Unix mode. */
const MADE_BY = (3 << 8) | VERSION;
const UTF8_NAMES = 0x0800;
const FILE_MODE = 0o100644;

export class ZipLimitError extends Error {}

/** An MS-DOS date and time (local time in the format; written here from UTC, as reproducible builds do). */
export function dosDateTime(date: Date): { date: number; time: number } {
  const year = Math.min(Math.max(date.getUTCFullYear(), 1980), 2107);
  const clamped = year !== date.getUTCFullYear();
  const at = clamped ? new Date(Date.UTC(year, 0, 1)) : date;
  return {
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2),
  };
}

export interface ZipEntryInfo {
  name: string;
  size: number;
  crc32: number;
}

interface Written extends ZipEntryInfo {
  offset: number;
}

/**
 * The fields a local header and the central directory both give an entry, in the same order from `at`: version
 * needed, flags, method (stored), time, date, CRC-32, both sizes, the name's length.
 */
function writeEntryFields(
  header: Buffer,
  at: number,
  entry: ZipEntryInfo,
  time: { date: number; time: number },
  nameLength: number,
): void {
  header.writeUInt16LE(VERSION, at);
  header.writeUInt16LE(UTF8_NAMES, at + 2);
  header.writeUInt16LE(0, at + 4);
  header.writeUInt16LE(time.time, at + 6);
  header.writeUInt16LE(time.date, at + 8);
  header.writeUInt32LE(entry.crc32 >>> 0, at + 10);
  header.writeUInt32LE(entry.size, at + 14);
  header.writeUInt32LE(entry.size, at + 18);
  header.writeUInt16LE(nameLength, at + 22);
}

/** Writes a ZIP through `write` (which appends bytes), entry by entry. */
export class ZipWriter {
  readonly #entries: Written[] = [];
  #offset = 0;

  constructor(
    private readonly write: (bytes: Buffer) => void,
    private readonly time: { date: number; time: number },
  ) {}

  /** Starts an entry whose size and CRC-32 are known; its data follows through `data()`, exactly `size` bytes. */
  begin(entry: ZipEntryInfo): void {
    if (entry.size >= ZIP_LIMIT || this.#offset >= ZIP_LIMIT) {
      throw new ZipLimitError(
        `${entry.name} or the archive before it reaches 4 GiB, past what a ZIP without ZIP64 holds`,
      );
    }
    const name = Buffer.from(entry.name, 'utf8');
    const header = Buffer.alloc(30);
    header.writeUInt32LE(LOCAL_HEADER, 0);
    writeEntryFields(header, 4, entry, this.time, name.length);
    header.writeUInt16LE(0, 28);
    this.#entries.push({ ...entry, offset: this.#offset });
    this.data(Buffer.concat([header, name]));
  }

  data(bytes: Buffer): void {
    this.write(bytes);
    this.#offset += bytes.length;
  }

  /** The central directory and its end. */
  finish(): void {
    const start = this.#offset;
    for (const entry of this.#entries) {
      const name = Buffer.from(entry.name, 'utf8');
      const header = Buffer.alloc(46);
      header.writeUInt32LE(CENTRAL_HEADER, 0);
      header.writeUInt16LE(MADE_BY, 4);
      writeEntryFields(header, 6, entry, this.time, name.length);
      header.writeUInt32LE((FILE_MODE << 16) >>> 0, 38);
      header.writeUInt32LE(entry.offset, 42);
      this.data(Buffer.concat([header, name]));
    }
    if (this.#offset >= ZIP_LIMIT || this.#entries.length > 0xffff) {
      throw new ZipLimitError('the archive reaches 4 GiB, past what a ZIP without ZIP64 holds');
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END_OF_CENTRAL, 0);
    end.writeUInt16LE(this.#entries.length, 8);
    end.writeUInt16LE(this.#entries.length, 10);
    end.writeUInt32LE(this.#offset - start, 12);
    end.writeUInt32LE(start, 16);
    this.data(end);
  }
}

/** An entry as the central directory lists it, with where its data starts. */
export interface ZipEntry {
  name: string;
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  dataOffset: number;
}

export class ZipFormatError extends Error {}

function readAt(fd: number, length: number, position: number): Buffer {
  const buffer = Buffer.alloc(length);
  const got = readSync(fd, buffer, 0, length, position);
  if (got !== length) throw new ZipFormatError(`it ends at byte ${position + got}, inside a header`);
  return buffer;
}

/** The entries of the ZIP open at `fd`, of `size` bytes; throws ZipFormatError on anything but a plain ZIP. */
export function zipEntries(fd: number, size: number): ZipEntry[] {
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = readAt(fd, tailLength, size - tailLength);
  let end = -1;
  for (let at = tail.length - 22; at >= 0; at -= 1) {
    if (tail.readUInt32LE(at) === END_OF_CENTRAL) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new ZipFormatError('it has no end of central directory: it is not a ZIP');
  const count = tail.readUInt16LE(end + 10);
  const directorySize = tail.readUInt32LE(end + 12);
  const directoryOffset = tail.readUInt32LE(end + 16);
  if (directoryOffset + directorySize > size) throw new ZipFormatError('its central directory lies past its end');
  const directory = readAt(fd, directorySize, directoryOffset);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i += 1) {
    if (at + 46 > directory.length || directory.readUInt32LE(at) !== CENTRAL_HEADER) {
      throw new ZipFormatError(`entry ${i + 1} of its central directory is damaged`);
    }
    const nameLength = directory.readUInt16LE(at + 28);
    const skip = nameLength + directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
    const name = directory.toString('utf8', at + 46, at + 46 + nameLength);
    const localOffset = directory.readUInt32LE(at + 42);
    const local = readAt(fd, 30, localOffset);
    if (local.readUInt32LE(0) !== LOCAL_HEADER) throw new ZipFormatError(`the local header of ${name} is missing`);
    entries.push({
      name,
      method: directory.readUInt16LE(at + 10),
      crc32: directory.readUInt32LE(at + 16),
      compressedSize: directory.readUInt32LE(at + 20),
      size: directory.readUInt32LE(at + 24),
      dataOffset: localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28),
    });
    at += 46 + skip;
  }
  return entries;
}
