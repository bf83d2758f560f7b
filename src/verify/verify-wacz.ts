/**
 * `verify` of a WACZ that `pack --format wacz` wrote (docs/capture.md#wacz), trusting nothing in it: the ZIP's
 * entries and their CRC-32, `datapackage-digest.json` against `datapackage.json`, each resource the data package
 * lists against its sha256 and size, and each line of `indexes/index.cdxj` against the record it points to (its
 * offset and length give exactly one record, of that URL, under that SURT key), the lines in order.
 */
import { createHash } from 'node:crypto';
import { closeSync, readSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { crc32, inflateRawSync } from 'node:zlib';
import { surt } from '../capture/cdxj.js';
import { recordIn, WarcFormatError } from '../capture/warc-reader.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { throwIfStopped, VerifyError } from '../util/errors.js';
import { openRegularFile } from '../format/safe-read.js';
import { zipEntries, ZipFormatError, type ZipEntry } from '../archive/zip-format.js';
import { Problems } from './problems.js';

export interface WaczResult {
  entries: number;
  /** Index lines checked against their records. */
  records: number;
  problems: string[];
  problemCount: number;
}

/** The largest entry read whole (the index, the pages, the data package), and the largest record. */
const MAX_READ_BYTES = 1 << 30;
const CHUNK = 1 << 20;
const LINES_PER_TURN = 256;

function readRange(fd: number, position: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const got = readSync(fd, bytes, done, length - done, position + done);
    if (got === 0) break;
    done += got;
  }
  return done === length ? bytes : bytes.subarray(0, done);
}

/** An entry's bytes, inflated when deflated; null (with a problem) when they cannot be read. */
function entryBytes(fd: number, entry: ZipEntry, problems: Problems): Buffer | null {
  if (entry.compressedSize > MAX_READ_BYTES || entry.size > MAX_READ_BYTES) {
    problems.add(`${entry.name} is larger than verify reads whole (${MAX_READ_BYTES} bytes).`);
    return null;
  }
  const raw = readRange(fd, entry.dataOffset, entry.compressedSize);
  let bytes: Buffer;
  if (entry.method === 0) bytes = raw;
  else if (entry.method === 8) {
    try {
      bytes = inflateRawSync(raw, { maxOutputLength: MAX_READ_BYTES });
    } catch (error) {
      problems.add(`${entry.name} does not inflate (${(error as Error).message}).`);
      return null;
    }
  } else {
    problems.add(`${entry.name} is compressed with method ${entry.method}, which a WACZ does not use.`);
    return null;
  }
  if (bytes.length !== entry.size || crc32(bytes) >>> 0 !== entry.crc32 >>> 0) {
    problems.add(`${entry.name} does not match the size and CRC-32 the ZIP gives it.`);
    return null;
  }
  return bytes;
}

/** A stored entry's SHA-256 and whether its CRC-32 holds, read a chunk at a time. */
function storedDigest(fd: number, entry: ZipEntry): { sha256: string; crcOk: boolean } {
  const hash = createHash('sha256');
  let crc = 0;
  for (let done = 0; done < entry.compressedSize;) {
    const chunk = readRange(fd, entry.dataOffset + done, Math.min(CHUNK, entry.compressedSize - done));
    if (chunk.length === 0) break;
    hash.update(chunk);
    crc = crc32(chunk, crc);
    done += chunk.length;
  }
  return { sha256: hash.digest('hex'), crcOk: crc >>> 0 === entry.crc32 >>> 0 };
}

function parseJson(bytes: Buffer | null, name: string, problems: Problems): unknown {
  if (bytes === null) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    problems.add(`${name} is not JSON.`);
    return undefined;
  }
}

/** datapackage-digest.json and each resource datapackage.json lists. */
function checkPackage(fd: number, entries: Map<string, ZipEntry>, problems: Problems): void {
  const required = ['datapackage.json', 'datapackage-digest.json', 'indexes/index.cdxj', 'pages/pages.jsonl'];
  for (const name of required) if (!entries.has(name)) problems.add(`The WACZ has no ${name}.`);
  const packageEntry = entries.get('datapackage.json');
  const digestEntry = entries.get('datapackage-digest.json');
  if (packageEntry === undefined || digestEntry === undefined) return;
  const packageBytes = entryBytes(fd, packageEntry, problems);
  const digest = parseJson(entryBytes(fd, digestEntry, problems), 'datapackage-digest.json', problems) as
    { hash?: unknown } | undefined;
  if (packageBytes !== null && digest !== undefined) {
    const actual = `sha256:${createHash('sha256').update(packageBytes).digest('hex')}`;
    if (digest.hash !== actual) problems.add('datapackage-digest.json does not give the sha256 of datapackage.json.');
  }
  const datapackage = parseJson(packageBytes, 'datapackage.json', problems) as { resources?: unknown } | undefined;
  if (datapackage === undefined) return;
  if (!Array.isArray(datapackage.resources)) {
    problems.add('datapackage.json lists no resources.');
    return;
  }
  for (const resource of datapackage.resources as Array<{ path?: unknown; hash?: unknown; bytes?: unknown }>) {
    const entry = typeof resource.path === 'string' ? entries.get(resource.path) : undefined;
    if (entry === undefined) {
      problems.add(`datapackage.json lists ${String(resource.path)}, which the WACZ does not hold.`);
      continue;
    }
    let sha256: string | null = null;
    if (entry.method === 0) {
      const read = storedDigest(fd, entry);
      if (!read.crcOk) problems.add(`${entry.name} does not match the CRC-32 the ZIP gives it.`);
      sha256 = read.sha256;
    } else {
      const bytes = entryBytes(fd, entry, problems);
      if (bytes !== null) sha256 = createHash('sha256').update(bytes).digest('hex');
    }
    if (sha256 !== null && resource.hash !== `sha256:${sha256}`) {
      problems.add(`${entry.name} does not match the sha256 datapackage.json gives it.`);
    }
    if (resource.bytes !== entry.size) problems.add(`${entry.name} is not the size datapackage.json gives it.`);
  }
}

/** Each index line against the record it points to. */
async function checkIndex(
  fd: number,
  entries: Map<string, ZipEntry>,
  problems: Problems,
  signal: AbortSignal | undefined,
): Promise<number> {
  const indexEntry = entries.get('indexes/index.cdxj');
  const bytes = indexEntry === undefined ? null : entryBytes(fd, indexEntry, problems);
  if (bytes === null) return 0;
  const lines = bytes.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  let previous = '';
  for (const [i, line] of lines.entries()) {
    if ((i + 1) % LINES_PER_TURN === 0) {
      await nextTurn();
      throwIfStopped(signal);
    }
    const where = `indexes/index.cdxj line ${i + 1}`;
    if (byCodeUnits(previous, line) > 0) problems.add(`${where} is out of order.`);
    previous = line;
    const match = /^(\S+) (\d{14}) (\{.*\})$/.exec(line);
    let fields: { url?: unknown; offset?: unknown; length?: unknown; filename?: unknown } | undefined;
    try {
      fields = match === null ? undefined : (JSON.parse(match[3]!) as typeof fields);
    } catch {
      fields = undefined;
    }
    const archive = typeof fields?.filename === 'string' ? entries.get(`archive/${fields.filename}`) : undefined;
    const offset = Number(fields?.offset);
    const length = Number(fields?.length);
    if (match === null || fields === undefined || archive === undefined || archive.method !== 0) {
      problems.add(`${where} is not "<SURT> <timestamp> {json}" naming a stored archive/ file.`);
      continue;
    }
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length <= 0) {
      problems.add(`${where} has no usable offset and length.`);
      continue;
    }
    if (offset + length > archive.size || length > MAX_READ_BYTES) {
      problems.add(`${where} points past the end of archive/${String(fields.filename)}.`);
      continue;
    }
    try {
      const record = recordIn(readRange(fd, archive.dataOffset + offset, length), where, MAX_READ_BYTES);
      const uri = record.fields.get('warc-target-uri');
      if (record.fields.get('warc-type') !== 'response' || uri === undefined || uri !== fields.url) {
        problems.add(`${where} points to a record that is not the response for ${String(fields.url)}.`);
      } else if (surt(uri) !== match[1]) {
        problems.add(`${where} has the key ${match[1]}, not the SURT of ${uri}.`);
      }
    } catch (error) {
      if (!(error instanceof WarcFormatError)) throw error;
      problems.add(`${where} does not lead to one record: ${error.message}`);
    }
  }
  return lines.length;
}

export async function verifyWacz(file: string, signal?: AbortSignal): Promise<WaczResult> {
  let opened;
  try {
    opened = openRegularFile(file);
  } catch (error) {
    throw new VerifyError(`${file} cannot be read (${(error as Error).message}).`);
  }
  const { fd, size } = opened;
  const problems = new Problems();
  try {
    let list: ZipEntry[];
    try {
      list = zipEntries(fd, size);
    } catch (error) {
      if (!(error instanceof ZipFormatError)) throw error;
      throw new VerifyError(`${file} is not a WACZ: ${error.message}.`);
    }
    const entries = new Map(list.map((entry) => [entry.name, entry]));
    checkPackage(fd, entries, problems);
    throwIfStopped(signal);
    const records = await checkIndex(fd, entries, problems, signal);
    return { entries: list.length, records, problems: problems.listed, problemCount: problems.count };
  } finally {
    closeSync(fd);
  }
}
