/**
 * `pack` (DESIGN.md §3, issue 5): a .tar.gz whose bytes depend only on the snapshot's files, so two packs of the
 * same vocabulary state have the same SHA-256 on any machine, in any time zone and locale.
 *
 * Layout decision: the snapshot's files sit at the archive's top level (`_cv-snapshot/manifest.json`, `sms/…`), not
 * under a folder. A folder would have to be named after the directory, and then the bytes would depend on where the
 * snapshot happened to be written; without one, `mkdir x && tar -xzf snap.tar.gz -C x` gives exactly the snapshot,
 * `sha256sum -c _cv-snapshot/SHA256SUMS` works in `x`, and `extractArchive`/`withSnapshotDir` hand over the
 * extraction directory itself as the snapshot.
 *
 * What is normalised: entry order (UTF-8 path bytes), mtime (the manifest's `createdAt`), uid/gid 0, empty user and
 * group names, modes 0755/0644, no extended headers except a path-only pax header for paths ustar cannot hold, and a
 * gzip header with no name, mtime 0 and OS byte 3.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { manifestSchema, MANIFEST_PATH } from '../snapshot/manifest.js';
import { ArchiveError } from './archive-error.js';
import { listSnapshotEntries, type SnapshotEntry } from './snapshot-entries.js';
import { END_OF_ARCHIVE, headerBlocks, padding } from './tar-format.js';

export interface PackResult {
  /** Absolute path of the archive written. */
  output: string;
  /** SHA-256 of the archive's bytes, as written to `<output>.sha256`. */
  sha256: string;
  bytes: number;
}

const DIR_MODE = 0o755;
const FILE_MODE = 0o644;
/**
 * Offset 9 of a gzip header is the OS that wrote it, and zlib fills in its build platform (3 on Linux, 19 on macOS,
 * 10 on Windows). We always write 3 ("Unix"): it is what GNU `gzip -n`, `git archive` and zlib write on Linux, where
 * most archives are made, and what reproducible-builds tooling (strip-nondeterminism) normalises to, so an archive
 * packed here matches one repacked by those tools rather than carrying an unusual "unknown" (255).
 */
export const GZIP_OS_UNIX = 3;
const GZIP_OS_OFFSET = 9;
/**
 * Level, window and memory are pinned rather than left to zlib's defaults: the deflate stream (and so the SHA-256)
 * depends on them. Level 9 because an archive is packed once per release and downloaded and stored many times.
 * The deflate stream also depends on the zlib implementation: Node ships its own (Chromium's fork), so the same
 * Node release gives the same bytes, but another zlib may compress differently. The tar stream inside never
 * changes, so `gunzip -c a.tar.gz | sha256sum` compares archives made by different deflaters.
 */
const GZIP_OPTIONS = { level: 9, windowBits: 15, memLevel: 8 } as const;
/** Files up to this size are read whole; larger ones are streamed so memory stays flat. */
const READ_WHOLE_LIMIT = 1 << 18;
/** Small headers and files are batched into chunks of about this size before gzip. */
const BATCH_BYTES = 1 << 16;

/** The snapshot's one recorded time, in whole seconds: every entry's mtime. */
async function recordedSeconds(root: string): Promise<number> {
  const schema = manifestSchema.pick({ format: true, createdAt: true });
  let createdAt: string;
  try {
    // Only the two fields pack needs are read, so pack works with every manifest version that keeps them.
    createdAt = schema.parse(
      JSON.parse(await readFile(path.join(root, ...MANIFEST_PATH.split('/')), 'utf8')),
    ).createdAt;
  } catch (error) {
    throw new ArchiveError(
      `${root} is not a cv-snapshot snapshot: ${MANIFEST_PATH} could not be read (${(error as Error).message.split('\n')[0]}). ` +
        'Give the directory that crawl wrote (--out).',
    );
  }
  const ms = Date.parse(createdAt);
  if (!Number.isFinite(ms) || ms < 0) {
    throw new ArchiveError(
      `${root}/${MANIFEST_PATH} has createdAt "${createdAt}", which is not a time after 1970; crawl the snapshot again.`,
    );
  }
  return Math.floor(ms / 1000);
}

function changedWhilePacking(entry: SnapshotEntry): ArchiveError {
  return new ArchiveError(
    `${entry.rel} changed size while it was being packed; wait until nothing writes to the snapshot, then pack again.`,
  );
}

/**
 * A small file's bytes, read synchronously: a snapshot is mostly documents of a few kB, and for those Node 20's
 * fs/promises readFile costs about ten times a sync read (several thread-pool round trips per file). The event loop
 * is held for at most one BATCH_BYTES batch of them before the generator yields.
 */
function readSmallFile(root: string, entry: SnapshotEntry): Buffer {
  const data = readFileSync(path.join(root, ...entry.rel.split('/')));
  if (data.length !== entry.size) throw changedWhilePacking(entry);
  return data;
}

/** The uncompressed tar stream, in chunks of about BATCH_BYTES. */
async function* tarChunks(root: string, entries: SnapshotEntry[], mtime: number): AsyncGenerator<Buffer> {
  let batch: Buffer[] = [];
  let batched = 0;
  const add = (chunk: Buffer): void => {
    batch.push(chunk);
    batched += chunk.length;
  };
  const take = (): Buffer => {
    const chunk = Buffer.concat(batch, batched);
    batch = [];
    batched = 0;
    return chunk;
  };
  for (const entry of entries) {
    const isDir = entry.kind === 'dir';
    const headers = headerBlocks({
      path: Buffer.from(isDir ? `${entry.rel}/` : entry.rel, 'utf8'),
      type: isDir ? '5' : '0',
      size: entry.size,
      mode: isDir ? DIR_MODE : FILE_MODE,
      mtime,
    });
    for (const header of headers) add(header);
    if (!isDir) {
      if (entry.size <= READ_WHOLE_LIMIT) {
        add(readSmallFile(root, entry));
      } else {
        yield take();
        let read = 0;
        for await (const chunk of createReadStream(path.join(root, ...entry.rel.split('/')), {
          highWaterMark: BATCH_BYTES,
        })) {
          read += (chunk as Buffer).length;
          if (read > entry.size) throw changedWhilePacking(entry);
          yield chunk as Buffer;
        }
        if (read !== entry.size) throw changedWhilePacking(entry);
      }
      add(padding(entry.size));
    }
    if (batched >= BATCH_BYTES) yield take();
  }
  add(END_OF_ARCHIVE);
  yield take();
}

/** Sets the gzip header's OS byte and hashes and counts the bytes on their way to the file (exported for its test). */
export class GzipFinisher extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let out = chunk;
    if (this.bytes <= GZIP_OS_OFFSET && this.bytes + chunk.length > GZIP_OS_OFFSET) {
      out = Buffer.from(chunk);
      out[GZIP_OS_OFFSET - this.bytes] = GZIP_OS_UNIX;
    }
    this.bytes += out.length;
    this.hash.update(out);
    callback(null, out);
  }
}

function tempPathFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Writes `text` to `file` through a temporary file and a rename, so readers never see half of it. */
async function writeFileAtomically(file: string, text: string): Promise<void> {
  const temp = tempPathFor(file);
  try {
    await writeFile(temp, text, { flag: 'wx' });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Packs the snapshot in `dir` into `output` (default `<dir>.tar.gz` beside it) and writes `<output>.sha256` in
 * `sha256sum` format. Streams: memory holds the list of paths, never the archive.
 */
export async function packSnapshot(dir: string, output?: string): Promise<PackResult> {
  const root = path.resolve(dir);
  // stat, not lstat: crawl publishes --out as a symbolic link to the snapshot directory.
  const stats = await stat(root).catch(() => null);
  if (stats === null || !stats.isDirectory()) {
    throw new ArchiveError(`${dir} is not a directory; give the snapshot directory that crawl wrote (--out).`);
  }
  const target = path.resolve(output ?? `${root}.tar.gz`);
  const relative = path.relative(root, target);
  if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))) {
    throw new ArchiveError(
      `The archive ${target} would be inside the snapshot ${root} and pack itself; write it elsewhere with --output.`,
    );
  }
  const mtime = await recordedSeconds(root);
  const entries = await listSnapshotEntries(root);

  const temp = tempPathFor(target);
  const finisher = new GzipFinisher();
  try {
    await pipeline(
      Readable.from(tarChunks(root, entries, mtime), { objectMode: false }),
      createGzip(GZIP_OPTIONS),
      finisher,
      createWriteStream(temp, { flags: 'wx' }),
    );
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError(
      `${target} could not be written: ${(error as Error).message}. Check that its directory exists and is writable.`,
    );
  }
  const sha256 = finisher.hash.digest('hex');
  await writeFileAtomically(`${target}.sha256`, `${sha256}  ${path.basename(target)}\n`);
  return { output: target, sha256, bytes: finisher.bytes };
}
