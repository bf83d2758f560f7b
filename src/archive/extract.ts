/**
 * A safe tar.gz reader for the archives `pack` writes and for plain tar.gz from GNU tar (ustar prefix, pax `path`
 * and `size`, GNU long names). It extracts only directories and regular files, and only inside `into`: absolute
 * paths, `..`, symbolic and hard links, devices and FIFOs are refused with an error naming the entry. Streams.
 *
 * `into` must be empty or missing. Nothing can then be in the way (no existing file to overwrite, no existing
 * symbolic link to write through), files are created with O_EXCL, and on failure `into` is left as it was (empty,
 * or removed again when this call created it).
 */
import { createReadStream, writeFileSync } from 'node:fs';
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ArchiveError } from './archive-error.js';
import { ByteReader } from './byte-reader.js';
import { BLOCK_SIZE, isZeroBlock, parseHeader, parsePaxRecords, padding } from './tar-format.js';

/** Pax headers and GNU long names are read whole; anything larger than this is not a name. */
const MAX_META_BYTES = 1 << 20;

const REFUSED_TYPES: Record<string, string> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '6': 'a named pipe',
  K: 'a long link name (GNU), which belongs to a link',
};

/** The entry's path as segments inside `into`, or an error when it would land anywhere else. */
function safeSegments(file: string, name: string): string[] {
  const refuse = (why: string): ArchiveError =>
    new ArchiveError(
      `${file} has an entry "${name}" that ${why}; it was not extracted. The archive is not a cv-snapshot archive, or it was tampered with.`,
    );
  if (name.includes('\0')) throw refuse('contains a NUL byte');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.includes('\\')) {
    throw refuse('is an absolute path or uses backslashes');
  }
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw refuse('climbs out of the extraction directory with ".."');
  return segments;
}

/** Entries up to this size are collected and written with one sync call; larger ones are streamed. */
const WRITE_WHOLE_LIMIT = 1 << 18;

async function writeEntryFile(target: string, reader: ByteReader, size: number): Promise<void> {
  // wx: a second entry with the same path, or anything already at the path, is an error, never an overwrite.
  if (size <= WRITE_WHOLE_LIMIT) {
    // Most snapshot files are a few kB; a sync write saves the thread-pool round trips of open, write and close.
    writeFileSync(target, (await reader.exactly(size)) ?? Buffer.alloc(0), { flag: 'wx', mode: 0o644 });
    return;
  }
  const handle = await open(target, 'wx', 0o644);
  try {
    for await (const chunk of reader.chunks(size)) {
      for (let done = 0; done < chunk.length;) done += (await handle.write(chunk, done)).bytesWritten;
    }
  } finally {
    await handle.close();
  }
}

async function extractEntries(file: string, reader: ByteReader, into: string): Promise<void> {
  // Directories made so far: a snapshot has many files per directory, and file creation is what extraction waits on.
  const made = new Set<string>([into]);
  const makeDir = async (dir: string): Promise<void> => {
    if (made.has(dir)) return;
    await mkdir(dir, { recursive: true, mode: 0o755 });
    made.add(dir);
  };
  let longName: string | null = null;
  let pax = new Map<string, string>();
  for (;;) {
    const block = await reader.exactly(BLOCK_SIZE);
    if (block === null)
      throw new ArchiveError(
        `${file} ends without tar's end-of-archive blocks; it is truncated. Pack or download it again.`,
      );
    if (isZeroBlock(block)) {
      await reader.drain();
      return;
    }
    const header = parseHeader(block);
    if (header === null)
      throw new ArchiveError(
        `${file} has a damaged tar header (its checksum does not match); pack or download it again.`,
      );
    const size = pax.has('size') ? Number(pax.get('size')) : header.size;
    if (!Number.isSafeInteger(size) || size < 0)
      throw new ArchiveError(`${file} has an entry with an invalid size; it is damaged.`);

    if (header.type === 'x' || header.type === 'g' || header.type === 'L') {
      if (size > MAX_META_BYTES)
        throw new ArchiveError(
          `${file} has a ${size}-byte extended header; that is not a name, so the archive is refused.`,
        );
      const data = (await reader.exactly(size)) ?? Buffer.alloc(0);
      await reader.skip(padding(size).length);
      // A global pax header ('g') sets defaults for the whole archive; none of its keys matter for a snapshot.
      if (header.type === 'x') pax = parsePaxRecords(data);
      if (header.type === 'L') longName = data.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    const name = pax.get('path') ?? longName ?? header.path;
    pax = new Map();
    longName = null;

    const refused = REFUSED_TYPES[header.type];
    if (refused !== undefined) {
      throw new ArchiveError(
        `${file} has an entry "${name}" that is ${refused}; only directories and regular files are extracted, so the archive is refused.`,
      );
    }
    const segments = safeSegments(file, name);
    const target = path.join(into, ...segments);
    if (header.type === '5') {
      await makeDir(target);
      await reader.skip(size + padding(size).length);
    } else if (header.type === '0' || header.type === '7') {
      if (segments.length === 0)
        throw new ArchiveError(`${file} has a file entry "${name}" without a name; the archive is damaged.`);
      await makeDir(path.dirname(target));
      await writeEntryFile(target, reader, size);
      await reader.skip(padding(size).length);
    } else {
      throw new ArchiveError(
        `${file} has an entry "${name}" of tar type "${header.type}", which is not a directory or a regular file; the archive is refused.`,
      );
    }
  }
}

function toArchiveError(file: string, error: unknown): ArchiveError {
  if (error instanceof ArchiveError) return error;
  const err = error as NodeJS.ErrnoException;
  if (err.code === 'ENOENT' && err.path === file) return new ArchiveError(`${file} does not exist.`);
  if (err.code === 'EEXIST')
    return new ArchiveError(`${file} has more than one entry at ${err.path ?? 'one path'}; the archive is damaged.`);
  if (err instanceof RangeError)
    return new ArchiveError(`${file} is truncated (${err.message}); pack or download it again.`);
  if (typeof err.code === 'string' && err.code.startsWith('Z_')) {
    return new ArchiveError(`${file} is not an intact .tar.gz (gzip says: ${err.message}); pack or download it again.`);
  }
  return new ArchiveError(`${file} could not be extracted: ${err.message}.`);
}

export async function extractArchive(file: string, into: string): Promise<void> {
  const target = path.resolve(into);
  let created: string | undefined;
  let existing: string[];
  try {
    // The first directory mkdir made, if any: removed again on failure, so a failed extraction leaves no trace.
    created = await mkdir(target, { recursive: true });
    existing = await readdir(target);
  } catch (error) {
    throw new ArchiveError(`${into} cannot be used to extract ${file} into: ${(error as Error).message}.`);
  }
  if (existing.length > 0) {
    throw new ArchiveError(`${into} is not empty; extract ${file} into an empty or new directory.`);
  }
  const gunzip = createGunzip({ chunkSize: 1 << 16 });
  // pipeline forwards a read error (missing file) into gunzip, whose iterator then throws it.
  pipeline(createReadStream(file), gunzip, () => undefined);
  const iterator = gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    await extractEntries(file, new ByteReader(iterator), target);
  } catch (error) {
    await iterator.return?.();
    if (created !== undefined) {
      await rm(created, { recursive: true, force: true });
    } else {
      const entries = await readdir(target).catch(() => []);
      await Promise.all(entries.map((entry) => rm(path.join(target, entry), { recursive: true, force: true })));
    }
    throw toArchiveError(file, error);
  } finally {
    await iterator.return?.();
  }
}
