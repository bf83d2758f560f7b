/**
 * Lets every command that reads a snapshot (`verify`, `diff`) take an archive as well as a directory.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, readFile, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MANIFEST_PATH } from '../snapshot/manifest.js';
import { ArchiveError } from './archive-error.js';
import { extractArchive } from './extract.js';

const ARCHIVE_SUFFIX = /\.(tar\.gz|tgz)$/i;

async function startsWithGzipMagic(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** Whether `target` names an archive rather than a snapshot directory. */
async function isArchive(target: string): Promise<boolean> {
  const stats = await stat(target).catch(() => null);
  if (stats === null) return ARCHIVE_SUFFIX.test(target);
  if (!stats.isFile()) return false;
  return ARCHIVE_SUFFIX.test(target) || (await startsWithGzipMagic(target));
}

/**
 * When `pack`'s sidecar `<archive>.sha256` lies beside the archive, the archive must match it. This catches what
 * extraction cannot: a changed byte in the gzip header's time or OS fields leaves the content intact.
 */
async function checkSidecar(file: string): Promise<void> {
  let sidecar: string;
  try {
    sidecar = await readFile(`${file}.sha256`, 'utf8');
  } catch {
    return;
  }
  const expected = /^([0-9a-f]{64}) [ *]/.exec(sidecar)?.[1];
  if (expected === undefined) return;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
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
 * Runs `fn` on a snapshot directory: `pathOrArchive` itself when it is a directory (or anything else that is not
 * an archive: `fn` reports it in its own words), or, for a .tar.gz/.tgz or a gzip file, a temporary extraction of
 * it that is removed when `fn` settles.
 */
export async function withSnapshotDir<T>(pathOrArchive: string, fn: (dir: string) => Promise<T>): Promise<T> {
  if (!(await isArchive(pathOrArchive))) return fn(pathOrArchive);
  await checkSidecar(pathOrArchive);
  const temp = await mkdtemp(path.join(os.tmpdir(), 'cv-snapshot-archive-'));
  try {
    await extractArchive(pathOrArchive, temp);
    return await fn(await snapshotRoot(temp));
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
