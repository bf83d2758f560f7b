/**
 * `pack` (docs/architecture.md#commands): a .tar.gz whose bytes depend only on the snapshot's files, so two packs of
 * the same vocabulary state have the same SHA-256 on any machine, in any time zone and locale.
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
import { createHash } from 'node:crypto';
import { closeSync, createWriteStream, lstatSync, readSync } from 'node:fs';
import { realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ArchiveError, StoppedError, throwIfStopped } from '../util/errors.js';
import * as z from 'zod';
import { manifestSchema, MANIFEST_PATH } from '../format/manifest.js';
import { SUMS_PATH } from '../store/sums.js';
import { partialSentence } from '../format/partial.js';
import { quoteUntrusted } from '../util/safe-text.js';
import { NotASnapshotError, readManifestWith } from '../format/read-manifest.js';
import { readSums } from '../format/read-sums.js';
import { NotRegularFileError, openRegularFile } from '../format/safe-read.js';
import { walkTree } from '../format/walk-tree.js';
import { removeOnExit } from './exit-cleanup.js';
import { checkOutput, sidecarText, tempPathFor } from './pack-output.js';
import { ancestorDirs, snapshotEntries, strayPaths, type SnapshotEntry } from './snapshot-entries.js';
import { END_OF_ARCHIVE, headerBlocks, MAX_OCTAL_11, padding } from './tar-format.js';

export interface PackResult {
  /** Absolute path of the archive written. */
  output: string;
  /** SHA-256 of the archive's bytes, as written to `<output>.sha256`. */
  sha256: string;
  bytes: number;
  /**
   * What the snapshot directory holds beyond the snapshot (not listed in its SHA256SUMS), left out of the archive:
   * a directory none of whose files are listed is named once, with a trailing slash.
   */
  leftOut: string[];
  /**
   * Why the snapshot is partial (made with --allow-partial: documents missing, or collections whose pages shifted),
   * in the sentence `verify` prints; null when it is complete. It is packed as it is.
   */
  partial: string | null;
}

export interface PackOptions {
  /** Where to write the archive; default `<dir>.tar.gz` beside the directory. */
  output?: string | undefined;
  /** Replace whatever is at the output, even a file that is not an archive pack wrote. */
  force?: boolean;
  /** Stops packing (StoppedError): no archive is written, and an earlier one is left as it was. */
  signal?: AbortSignal | undefined;
}

const DIR_MODE = 0o755;
const FILE_MODE = 0o644;
/**
 * Offset 9 of a gzip header is the OS that wrote it, and zlib fills in its build platform (3 on Linux, 19 on macOS,
 * 10 on Windows). We always write 3 ("Unix"): it is what GNU `gzip -n`, `git archive` and zlib write on Linux, where
 * most archives are made, and what reproducible-builds tooling (strip-nondeterminism) normalises to, so an archive
 * packed here matches one repacked by those tools rather than carrying an unusual "unknown" (255).
 */
const GZIP_OS_UNIX = 3;
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

/**
 * Only the fields pack needs are read, so pack works with every manifest version that keeps them: the time, and
 * whether the snapshot is partial (absent from no manifest crawl wrote, but not needed to pack one).
 */
const PACKED_MANIFEST = manifestSchema.pick({ format: true, createdAt: true }).extend({
  partial: z.boolean().optional(),
  missing: z.array(z.string()).optional(),
  shifted: z.array(z.string()).optional(),
});

/** The snapshot's one recorded time, in whole seconds (every entry's mtime), and why it is partial if it is. */
function readPackedManifest(root: string, name: string): { seconds: number; partial: string | null } {
  const manifest = readManifestWith(root, name, PACKED_MANIFEST);
  const { createdAt } = manifest;
  const ms = Date.parse(createdAt);
  const seconds = Math.floor(ms / 1000);
  if (!Number.isFinite(ms) || seconds < 0 || seconds > MAX_OCTAL_11) {
    throw new ArchiveError(
      `${name}: ${MANIFEST_PATH} has createdAt "${createdAt.slice(0, 40)}", which a tar header cannot hold as every ` +
        "file's time (it holds 1970-01-01 to 2242-03-16). The manifest was not written by crawl as it is now: crawl " +
        'the snapshot again (SOURCE_DATE_EPOCH, when set, must be within that range).',
    );
  }
  const partial =
    manifest.partial === true
      ? partialSentence(quoteUntrusted(name), { missing: manifest.missing ?? [], shifted: manifest.shifted })
      : null;
  return { seconds, partial };
}

/** What the tree holds, checked against SHA256SUMS: the archive's entries, and what is left out. */
async function listSnapshot(root: string, name: string, signal: AbortSignal | undefined) {
  const files = new Map<string, number>();
  const specials = new Map<string, string>();
  await walkTree(
    root,
    {
      // Dirent types come from readdir without a stat (on most file systems); the size needs one lstat.
      file: (rel) => files.set(rel, lstatSync(path.join(root, ...rel.split('/'))).size),
      special: (rel, kind) => specials.set(rel, kind),
    },
    signal,
  );
  let reading;
  try {
    reading = await readSums(root, (file) => files.has(file) || specials.has(file), { signal });
  } catch (error) {
    if (error instanceof StoppedError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new NotASnapshotError(
        `${name} has no ${SUMS_PATH}, so it is not a complete snapshot: pack archives exactly the files that file ` +
          'lists. Crawl it again.',
      );
    }
    const why =
      error instanceof NotRegularFileError ? `is ${error.kind}` : `cannot be read (${(error as Error).message})`;
    throw new ArchiveError(`${name}: ${SUMS_PATH} ${why}; pack archives exactly the files it lists.`);
  }
  const refuse = (what: string): ArchiveError =>
    new ArchiveError(
      `${name} ${what}; pack never archives a snapshot that differs from its checksums. Run cv-snapshot verify on it.`,
    );
  if (reading.problemCount > 0) {
    const more = reading.problemCount > 1 ? ` (and ${reading.problemCount - 1} more faulty lines)` : '';
    throw refuse(`cannot be packed: ${reading.problems[0]!.replace(/\.$/, '')}${more}`);
  }
  if (reading.dropped.count > 0) {
    const names = reading.dropped.first.join(', ');
    const more = reading.dropped.count > reading.dropped.first.length ? ', …' : '';
    throw refuse(`lacks ${reading.dropped.count} of the files its ${SUMS_PATH} lists (${names}${more})`);
  }
  const listed = new Map<string, { size: number; sha256: string }>();
  for (const [rel, sha256] of reading.sums) {
    const kind = specials.get(rel);
    if (kind !== undefined) throw refuse(`holds ${rel} as ${kind}, where ${SUMS_PATH} lists a file`);
    listed.set(rel, { size: files.get(rel)!, sha256 });
  }
  const sums = { rel: SUMS_PATH, size: files.get(SUMS_PATH)! };
  const unlisted = [...files.keys(), ...specials.keys()].filter((rel) => rel !== SUMS_PATH && !listed.has(rel));
  return {
    entries: snapshotEntries(listed, sums),
    leftOut: strayPaths(unlisted, ancestorDirs([...listed.keys(), SUMS_PATH])),
  };
}

function changedSinceCrawl(entry: SnapshotEntry): ArchiveError {
  return new ArchiveError(
    `${entry.rel} does not match its checksum in ${SUMS_PATH}: it was changed after the crawl, or is being written ` +
      'now. pack never archives a changed snapshot: run cv-snapshot verify on it, restore the file or crawl again.',
  );
}

/** A file's bytes for the archive, checked against its listed size and checksum as they pass. */
function* fileChunks(root: string, entry: SnapshotEntry): Generator<Buffer> {
  let opened;
  try {
    opened = openRegularFile(path.join(root, ...entry.rel.split('/')));
  } catch (error) {
    // Replaced by a link or a pipe since the tree was listed: not the file the checksum is of.
    if (error instanceof NotRegularFileError) throw changedSinceCrawl(entry);
    throw error;
  }
  const { fd, size } = opened;
  try {
    if (size !== entry.size) throw changedSinceCrawl(entry);
    const hash = createHash('sha256');
    let left = size;
    while (left > 0) {
      const chunk = Buffer.allocUnsafe(Math.min(left, READ_WHOLE_LIMIT));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) throw changedSinceCrawl(entry);
      const bytes = read === chunk.length ? chunk : chunk.subarray(0, read);
      hash.update(bytes);
      left -= read;
      yield bytes;
    }
    if (entry.sha256 !== undefined && hash.digest('hex') !== entry.sha256) throw changedSinceCrawl(entry);
  } finally {
    closeSync(fd);
  }
}

/**
 * The uncompressed tar stream, in chunks of about BATCH_BYTES. Synchronous: the stream pulls one chunk at a time as
 * gzip drains, so a signal is seen between chunks.
 */
function* tarChunks(
  root: string,
  entries: SnapshotEntry[],
  mtime: number,
  signal: AbortSignal | undefined,
): Generator<Buffer> {
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
      for (const chunk of fileChunks(root, entry)) {
        add(chunk);
        if (batched >= BATCH_BYTES) {
          throwIfStopped(signal);
          yield take();
        }
      }
      add(padding(entry.size));
    }
    if (batched >= BATCH_BYTES) {
      throwIfStopped(signal);
      yield take();
    }
  }
  add(END_OF_ARCHIVE);
  throwIfStopped(signal);
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

/** The snapshot directory `dir` names (through a link such as --out), or a sentence saying what it is instead. */
async function snapshotDir(dir: string): Promise<string> {
  let root: string;
  try {
    root = await realpath(dir);
  } catch {
    throw new NotASnapshotError(`${dir} does not exist. Give the snapshot directory that crawl wrote (--out).`);
  }
  if (!(await stat(root)).isDirectory()) {
    throw new NotASnapshotError(
      `${dir} is a file, not a snapshot directory; give the directory that crawl wrote (--out).`,
    );
  }
  return root;
}

/**
 * Packs the snapshot in `dir` into an archive (default `<dir>.tar.gz` beside it) and writes `<archive>.sha256` in
 * `sha256sum` format. The archive holds exactly the files SHA256SUMS lists, each checked against its checksum as it
 * is read; whatever else the directory holds is left out and named in `leftOut`. Streams: memory holds the list of
 * paths, never the archive.
 */
export async function packSnapshot(dir: string, outputOrOptions?: string | PackOptions): Promise<PackResult> {
  const options: PackOptions =
    typeof outputOrOptions === 'string' ? { output: outputOrOptions } : (outputOrOptions ?? {});
  const { signal } = options;
  const root = await snapshotDir(dir);
  const target = path.resolve(options.output ?? `${path.resolve(dir)}.tar.gz`);
  const { seconds: mtime, partial } = readPackedManifest(root, dir);
  await checkOutput(target, root, options.force === true);
  const { entries, leftOut } = await listSnapshot(root, dir, signal);

  const temp = tempPathFor(target);
  const tempSidecar = tempPathFor(`${target}.sha256`);
  const forget = [removeOnExit(temp), removeOnExit(tempSidecar)];
  const finisher = new GzipFinisher();
  try {
    await pipeline(
      Readable.from(tarChunks(root, entries, mtime, signal), { objectMode: false }),
      createGzip(GZIP_OPTIONS),
      finisher,
      createWriteStream(temp, { flags: 'wx' }),
    );
    const sha256 = finisher.hash.digest('hex');
    await writeFile(tempSidecar, sidecarText(sha256, target), { flag: 'wx' });
    throwIfStopped(signal);
    // The archive first: a kill between the renames leaves the new archive with the old sidecar, which the next
    // pack (and verify) notices, never an old archive that a new sidecar vouches for.
    await rename(temp, target);
    await rename(tempSidecar, `${target}.sha256`);
    return { output: target, sha256, bytes: finisher.bytes, leftOut, partial };
  } catch (error) {
    await Promise.all([rm(temp, { force: true }), rm(tempSidecar, { force: true })]);
    if (error instanceof ArchiveError || error instanceof StoppedError) throw error;
    throw new ArchiveError(
      `${target} could not be written: ${(error as Error).message}. Check that its directory is writable.`,
    );
  } finally {
    for (const f of forget) f();
  }
}
