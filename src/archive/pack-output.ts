/**
 * Where `pack` may write, and how: it never overwrites a file it did not make, never writes into a snapshot, and
 * replaces an earlier archive only as a whole. The archive and its sidecar are written under temporary names
 * beside them and renamed into place, so a pack that fails or is interrupted leaves the earlier archive as it was
 * and no temporary file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, lstatSync, readSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { MANIFEST_PATH } from '../format/manifest.js';
import { NotRegularFileError, openRegularFile, readRegularFile } from '../format/safe-read.js';
import { ArchiveError } from '../util/errors.js';

/**
 * The first ten bytes of every archive pack writes: gzip magic, deflate, no flags, mtime 0, "maximum compression"
 * (level 9) and OS 3. `gzip -9n` writes the same, so the sidecar must match too before a file counts as pack's.
 */
const PACK_GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03]);

/** The sidecar's one line, in `sha256sum` format. */
export function sidecarText(sha256: string, archive: string): string {
  return `${sha256}  ${path.basename(archive)}\n`;
}

const SIDECAR_LINE = /^([0-9a-f]{64}) {2}(.+)\n$/;

/** The SHA-256 a sidecar names for `archive`, or null when `text` is not such a sidecar. */
function sidecarHash(text: string, archive: string): string | null {
  const match = SIDECAR_LINE.exec(text);
  return match !== null && match[2] === path.basename(archive) ? match[1]! : null;
}

/** Why `file` is not an archive that pack wrote, or null when it is one (its header, and its sidecar matches it). */
function notPackArchive(file: string): string | null {
  let fd: number;
  try {
    ({ fd } = openRegularFile(file));
  } catch (error) {
    return error instanceof NotRegularFileError ? `it is ${error.kind}` : (error as Error).message;
  }
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(1 << 20);
  let header: Buffer | null = null;
  try {
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) {
      if (header === null) {
        header = Buffer.from(chunk.subarray(0, Math.min(read, PACK_GZIP_HEADER.length)));
        if (!header.equals(PACK_GZIP_HEADER)) return 'it does not start as the .tar.gz files pack writes';
      }
      hash.update(chunk.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
  if (header === null) return 'it is empty';
  let sidecar: string;
  try {
    sidecar = readRegularFile(`${file}.sha256`, 1 << 16).toString('utf8');
  } catch {
    return `there is no ${path.basename(file)}.sha256 beside it`;
  }
  const expected = sidecarHash(sidecar, file);
  if (expected === null) return `${path.basename(file)}.sha256 beside it is not the checksum file pack writes`;
  return expected === hash.digest('hex') ? null : `it does not match ${path.basename(file)}.sha256 beside it`;
}

/** The snapshot directory that holds `dir` or is `dir` (it has a manifest), or null. */
function enclosingSnapshot(dir: string): string | null {
  for (let at = dir; ; at = path.dirname(at)) {
    if (lstatSync(path.join(at, ...MANIFEST_PATH.split('/')), { throwIfNoEntry: false }) !== undefined) return at;
    if (path.dirname(at) === at) return null;
  }
}

/**
 * Checks, before anything is packed, that the archive may be written at `target`: its directory exists and is not
 * inside a snapshot (the one being packed, reached through any link, or another generation beside it), and
 * whatever is at `target` and `<target>.sha256` is an earlier archive of pack's, unless `force`.
 */
export async function checkOutput(target: string, snapshotRoot: string, force: boolean): Promise<void> {
  let parent: string;
  try {
    parent = await realpath(path.dirname(target));
  } catch (error) {
    throw new ArchiveError(
      `${target} cannot be written: its directory ${path.dirname(target)} does not exist or cannot be read ` +
        `(${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Create it, or choose another ` +
        '--output.',
    );
  }
  const real = path.join(parent, path.basename(target));
  const relative = path.relative(snapshotRoot, real);
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  if (!outside) {
    throw new ArchiveError(
      `The archive ${target} would be inside the snapshot ${snapshotRoot} and pack itself; write it elsewhere ` +
        'with --output.',
    );
  }
  const holder = enclosingSnapshot(parent);
  if (holder !== null) {
    throw new ArchiveError(
      `The archive ${target} would be inside the snapshot ${holder}, which would then hold a file its SHA256SUMS ` +
        'does not list; write it elsewhere with --output.',
    );
  }
  const existing = lstatSync(target, { throwIfNoEntry: false });
  if (existing?.isDirectory() === true) {
    throw new ArchiveError(`${target} is a directory; give --output the name of the archive file to write.`);
  }
  if (force) return;
  if (existing !== undefined) {
    const why = notPackArchive(target);
    if (why !== null) {
      throw new ArchiveError(
        `${target} already exists and is not an archive that pack wrote (${why}); pack replaces only its own ` +
          'archives. Choose another --output, or add --force to replace it.',
      );
    }
    return;
  }
  // No archive, but a sidecar: only one that pack left (a line naming this archive) is replaced.
  const sidecar = `${target}.sha256`;
  if (lstatSync(sidecar, { throwIfNoEntry: false }) === undefined) return;
  let text = '';
  try {
    text = readRegularFile(sidecar, 1 << 16).toString('utf8');
  } catch {
    // Not a regular file, or too large: not a sidecar.
  }
  if (sidecarHash(text, target) === null) {
    throw new ArchiveError(
      `${sidecar} already exists and is not a checksum file that pack wrote; pack would replace it. Choose ` +
        'another --output, or add --force to replace it.',
    );
  }
}

/** A name beside `file` for writing it: hidden, unique, and never a name pack would replace. */
export function tempPathFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}
