/**
 * A capture file being written (docs/capture.md#the-file): `capture-00001.warc.gz` and on, one per run of a crawl in
 * the snapshot's metadata folder, so that a resumed crawl appends nothing to what an interrupted one left. Each record
 * is one gzip member, and an exchange's records are written at once with one synchronous call: a kill loses only the
 * exchanges still in flight, never part of one already written. The file is synced to disk twice a second, as the
 * journal is.
 */
import { closeSync, constants, fdatasync, mkdirSync, openSync, readdirSync, writeSync, writevSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const datasync = promisify(fdatasync);

/** The names capture files have: `capture-<five or more digits>.warc.gz`. */
export const CAPTURE_FILE = /^capture-(\d{5,})\.warc\.gz$/;

/** The capture files in `dir`, in the order they were written. */
export function captureFiles(names: Iterable<string>): string[] {
  return [...names]
    .filter((name) => CAPTURE_FILE.test(name))
    .sort((a, b) => Number(CAPTURE_FILE.exec(a)![1]) - Number(CAPTURE_FILE.exec(b)![1]));
}

export class CaptureFile {
  #dirty = false;
  #closed = false;
  #syncing: Promise<void> = Promise.resolve();
  readonly #timer: NodeJS.Timeout;

  private constructor(
    private readonly fd: number,
    /** The file's name in its folder. */
    readonly name: string,
  ) {
    this.#timer = setInterval(() => void this.sync(), 500);
    this.#timer.unref();
  }

  /** Creates the next capture file in `dir` (made if missing): one numbered after those already there. */
  static create(dir: string): CaptureFile {
    mkdirSync(dir, { recursive: true });
    const existing = captureFiles(readdirSync(dir));
    const last = existing.length === 0 ? 0 : Number(CAPTURE_FILE.exec(existing.at(-1)!)![1]);
    const name = `capture-${String(last + 1).padStart(5, '0')}.warc.gz`;
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND | constants.O_NOFOLLOW;
    return new CaptureFile(openSync(path.join(dir, name), flags, 0o644), name);
  }

  /** Appends records (whole gzip members), an exchange's in one system call. */
  append(members: readonly Buffer[]): void {
    if (this.#closed) return;
    let total = 0;
    for (const member of members) total += member.length;
    const written = writevSync(this.fd, members);
    if (written < total) {
      // A short write (a full disk, a signal): the rest, in order.
      const rest = Buffer.concat(members, total).subarray(written);
      for (let offset = 0; offset < rest.length;) offset += writeSync(this.fd, rest, offset, rest.length - offset);
    }
    this.#dirty = true;
  }

  sync(): Promise<void> {
    this.#syncing = this.#syncing.then(async () => {
      if (!this.#dirty || this.#closed) return;
      this.#dirty = false;
      await datasync(this.fd);
    });
    return this.#syncing;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    clearInterval(this.#timer);
    await this.sync();
    this.#closed = true;
    closeSync(this.fd);
  }
}
