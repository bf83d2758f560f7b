/**
 * The files `cv-snapshot serve` may answer: exactly those the snapshot's SHA256SUMS lists (the manifest's own file
 * set), never anything else found in the directory, and only regular files: never through a symbolic link (on the
 * way or at the end), never a named pipe, socket, device or directory, which are refused without being opened
 * (format/safe-read.ts; a named pipe opened for reading would wait for a writer forever). Reads are synchronous,
 * so no request ever holds a thread of libuv's pool, whose four threads a few stuck reads would exhaust, and whose
 * stuck threads would keep the process from exiting on a signal. Nothing here can write. Contents are kept in
 * memory up to a byte budget (the snapshot is immutable while it is served), with a strong ETag from the checksum
 * the snapshot already records.
 */
import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseSums, SUMS_PATH } from '../store/sums.js';
import { firstLine, NotRegularFileError, readSnapshotFile } from '../format/safe-read.js';
import { shellWord } from '../util/safe-text.js';

/**
 * Host configuration files: part of the snapshot, but no static host answers them either. And `404.html`: what a
 * host answers for an unknown path, but at its own path no document of the source, so that path is a 404 too.
 */
const NOT_SERVED = new Set(['_headers', '_redirects', 'serve.json', '404.html']);

/**
 * Why `dir` cannot be served because it is a file (an archive made by `pack`, most likely), with what to do
 * instead; null when it is not a file (a directory, or nothing: the caller says so).
 */
export async function notADirectory(dir: string): Promise<string | null> {
  let isFile: boolean;
  try {
    isFile = (await stat(dir)).isFile();
  } catch {
    return null;
  }
  if (!isFile) return null;
  let gzip = /\.(tar\.gz|tgz|gz)$/i.test(dir);
  if (!gzip) {
    const handle = await open(dir, constants.O_RDONLY);
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
      gzip = bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
    } finally {
      await handle.close();
    }
  }
  if (!gzip) return `${dir} is a file; serve needs the snapshot directory that \`cv-snapshot crawl --out\` wrote.`;
  const base = path.basename(dir).replace(/\.(tar\.gz|tgz|gz)$/i, '');
  const target = path.join(path.dirname(dir), base === path.basename(dir) || base === '' ? 'snapshot' : base);
  return (
    `${dir} is an archive; serve needs a directory. Extract it first, then serve that directory: ` +
    `mkdir ${shellWord(target)} && tar -xzf ${shellWord(dir)} -C ${shellWord(target)} && ` +
    `cv-snapshot serve ${shellWord(target)}`
  );
}

/**
 * A file SHA256SUMS lists that is missing from the tree, or is not a regular file there (`why` names the path and
 * what it is: it may be a directory on the way): never answered.
 */
export class RefusedFileError extends Error {
  constructor(
    readonly file: string,
    readonly why: string | null,
  ) {
    super(why === null ? `${file} is missing` : `${file} is refused: ${why}`);
  }
}

/**
 * A stored file that serve must parse to answer (the root index, a list page for a query) and that is not JSON: the
 * snapshot was damaged after the crawl, or comes from a source whose answer the crawl kept as it was (and reported).
 */
export class UnparsableFileError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`${file} is not valid JSON (${firstLine(cause)})`);
  }
}

/** `text`, the stored `file`, parsed by `parse`; a file that is not JSON is an UnparsableFileError. */
export function parseStored<T>(file: string, text: Buffer, parse: (text: Buffer) => T): T {
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) throw new UnparsableFileError(file, error);
    throw error;
  }
}

const toPosix = (rel: string): string => rel.split(path.sep).join('/');

export interface StoredFile {
  readonly body: Buffer;
  readonly etag: string;
}

export class SnapshotFiles {
  private readonly cache = new Map<string, StoredFile>();
  private cachedBytes = 0;

  private constructor(
    readonly dir: string,
    private readonly sums: ReadonlyMap<string, string>,
    private readonly cacheBudget: number,
  ) {}

  /** Opens the snapshot at `dir`; fails with a plain message when it has no SHA256SUMS. */
  static async open(dir: string, cacheBudget = 64 * 1024 * 1024): Promise<SnapshotFiles> {
    const root = await realpath(dir);
    const text = readSnapshotFile(root, SUMS_PATH).toString('utf8');
    return new SnapshotFiles(root, parseSums(text), cacheBudget);
  }

  has(file: string): boolean {
    return this.sums.has(file) && !NOT_SERVED.has(file);
  }

  files(): Iterable<string> {
    return this.sums.keys();
  }

  /**
   * Reads a file of the snapshot (one that `has`), from memory when it was read before. A listed path that is not a
   * regular file in the tree, or is missing, throws RefusedFileError.
   */
  // eslint-disable-next-line @typescript-eslint/require-await -- synchronous on purpose (see above), async for callers
  async read(file: string): Promise<StoredFile> {
    const cached = this.cache.get(file);
    if (cached !== undefined) {
      // Most recently used goes last; the oldest is evicted first.
      this.cache.delete(file);
      this.cache.set(file, cached);
      return cached;
    }
    const sha256 = this.sums.get(file);
    if (sha256 === undefined || NOT_SERVED.has(file)) throw new Error(`${file} is not a file of the snapshot`);
    let body: Buffer;
    try {
      body = readSnapshotFile(this.dir, file);
    } catch (error) {
      if (error instanceof NotRegularFileError) {
        const where = path.isAbsolute(error.file) ? toPosix(path.relative(this.dir, error.file)) : file;
        throw new RefusedFileError(file, `${where} is ${error.kind}`);
      }
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new RefusedFileError(file, null);
      throw error;
    }
    const stored: StoredFile = { body, etag: `"${sha256.slice(0, 32)}"` };
    if (body.length <= this.cacheBudget / 8) {
      this.cache.set(file, stored);
      this.cachedBytes += body.length;
      for (const [key, value] of this.cache) {
        if (this.cachedBytes <= this.cacheBudget) break;
        this.cache.delete(key);
        this.cachedBytes -= value.body.length;
      }
    }
    return stored;
  }

  async readJson(file: string): Promise<unknown> {
    return parseStored(file, (await this.read(file)).body, (body): unknown => JSON.parse(body.toString('utf8')));
  }
}
