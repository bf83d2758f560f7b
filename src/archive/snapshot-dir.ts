/**
 * What `verify` and `diff` are given: a snapshot directory, or an archive of one (a file, or a named pipe such as
 * `<(curl …)`), which is extracted into a temporary directory for the time of the command.
 * Anything else is refused with one sentence saying what it is.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ArchiveError, throwIfStopped } from '../util/errors.js';
import { MANIFEST_PATH } from '../format/manifest.js';
import { GIVE_A_SNAPSHOT, NotASnapshotError } from '../format/read-manifest.js';
import { kindOf, readRegularFile } from '../format/safe-read.js';
import { removeOnExit } from './exit-cleanup.js';
import { extractArchive, type ExtractLimits } from './extract.js';
import { removeTree } from '../store/remove-tree.js';

export interface SnapshotDirOptions {
  /** Stops extraction and `fn` alike (StoppedError); the temporary directory is removed either way. */
  signal?: AbortSignal | undefined;
  limits?: ExtractLimits;
}

async function startsWithGzipMagic(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** Whether `target` is a snapshot directory or an archive; throws NotASnapshotError for anything else. */
async function classify(target: string): Promise<'dir' | 'archive'> {
  let stats;
  try {
    stats = await stat(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new NotASnapshotError(`${target} does not exist. ${GIVE_A_SNAPSHOT}`);
    }
    throw new NotASnapshotError(`${target} cannot be read (${(error as Error).message}).`);
  }
  if (stats.isDirectory()) return 'dir';
  // A pipe (`<(curl …)`): read as a stream, never read twice.
  if (stats.isFIFO()) return 'archive';
  if (!stats.isFile()) {
    throw new NotASnapshotError(`${target} is ${kindOf(stats)}, not a snapshot or an archive. ${GIVE_A_SNAPSHOT}`);
  }
  let gzip: boolean;
  try {
    gzip = await startsWithGzipMagic(target);
  } catch (error) {
    throw new NotASnapshotError(`${target} cannot be read (${(error as Error).message}).`);
  }
  if (!gzip) {
    throw new NotASnapshotError(
      `${target} is a file, but not a .tar.gz archive (it does not start with gzip's signature). ${GIVE_A_SNAPSHOT}`,
    );
  }
  return 'archive';
}

/**
 * When `pack`'s sidecar `<archive>.sha256` lies beside the archive, the archive must match it. This catches what
 * extraction cannot: a changed byte in the gzip header's time or OS fields leaves the content intact.
 */
async function checkSidecar(file: string, signal: AbortSignal | undefined): Promise<void> {
  let sidecar: string;
  try {
    sidecar = readRegularFile(`${file}.sha256`, 1 << 16).toString('utf8');
  } catch {
    return;
  }
  const expected = /^([0-9a-f]{64}) [ *]/.exec(sidecar)?.[1];
  if (expected === undefined) return;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    throwIfStopped(signal);
  }
  const actual = hash.digest('hex');
  if (actual !== expected) {
    throw new ArchiveError(
      `${file} was changed: its SHA-256 is ${actual}, but ${path.basename(file)}.sha256 beside it says ${expected}.`,
    );
  }
}

/**
 * `pack` puts the snapshot at the archive's top level. An archive made by hand with `tar -czf x.tgz snap/` has it
 * one folder down; accept that too when the top holds only that folder.
 */
async function snapshotRoot(extracted: string): Promise<string> {
  if ((await stat(path.join(extracted, ...MANIFEST_PATH.split('/'))).catch(() => null)) !== null) return extracted;
  const entries = await readdir(extracted, { withFileTypes: true });
  const only = entries[0];
  if (entries.length === 1 && only !== undefined && only.isDirectory()) return path.join(extracted, only.name);
  return extracted;
}

/**
 * Runs `fn` on a snapshot directory: `pathOrArchive` itself when it is a directory, or a temporary extraction of an
 * archive (a .tar.gz file, or a pipe), which is removed when `fn` settles, when the signal stops it, and when the
 * process exits before that. A path that is neither is refused with NotASnapshotError.
 */
export async function withSnapshotDir<T>(
  pathOrArchive: string,
  fn: (dir: string) => Promise<T>,
  options: SnapshotDirOptions = {},
): Promise<T> {
  const { signal } = options;
  if ((await classify(pathOrArchive)) === 'dir') return fn(pathOrArchive);
  const isFile = (await stat(pathOrArchive)).isFile();
  if (isFile) await checkSidecar(pathOrArchive, signal);
  throwIfStopped(signal);
  let temp: string;
  try {
    temp = await mkdtemp(path.join(os.tmpdir(), 'cv-snapshot-archive-'));
  } catch (error) {
    throw new ArchiveError(
      `${pathOrArchive} cannot be extracted: no temporary directory can be made in ${os.tmpdir()} ` +
        `(${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Set TMPDIR to a writable directory.`,
    );
  }
  const forget = removeOnExit(temp);
  try {
    await extractArchive(pathOrArchive, temp, { signal, limits: options.limits ?? {} });
    return await fn(await snapshotRoot(temp));
  } finally {
    await removeTree(temp);
    forget();
  }
}
