/**
 * A capture file being written (docs/capture.md#the-file): `capture-00001.warc.gz` and on, one per run of a crawl in
 * the snapshot's metadata folder, so that a resumed crawl appends nothing to what an interrupted one left. Each record
 * is one gzip member, and an exchange's records are written at once with one synchronous call: a kill loses only the
 * exchanges still in flight, never part of one already written. The file is synced to disk twice a second, as the
 * journal is.
 *
 * The crawl's worker threads append to the same file through the descriptor this thread opened (a descriptor is the
 * process's, not a thread's): the file is opened for appending, so each call's bytes go to the end of the file as
 * one piece, whichever thread makes it, and the records of two exchanges never interleave. The thread that opened
 * the file syncs and closes it, once the workers have stopped.
 */
import { closeSync, constants, fdatasync, mkdirSync, openSync, readdirSync, writevSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeFully } from '../util/write-fully.js';

const datasync = promisify(fdatasync);

/** The names capture files have: `capture-<five or more digits>.warc.gz`. */
export const CAPTURE_FILE = /^capture-(\d{5,})\.warc\.gz$/;

/** The capture files in `dir`, in the order they were written. */
export function captureFiles(names: Iterable<string>): string[] {
  return [...names]
    .filter((name) => CAPTURE_FILE.test(name))
    .sort((a, b) => Number(CAPTURE_FILE.exec(a)![1]) - Number(CAPTURE_FILE.exec(b)![1]));
}

/** Where a record is appended: the capture file, from the thread that opened it or from a worker thread. */
export interface RecordSink {
  /** The file's name in its folder. */
  readonly name: string;
  /** Appends records (whole gzip members), an exchange's in one system call. */
  append(members: readonly Buffer[]): void;
}

/** The open capture file as a worker thread is handed it. */
export interface SharedFile {
  fd: number;
  name: string;
}

/** Appends `members` to the file open at `fd` (for appending) with one system call, then what a short write left. */
function appendTo(fd: number, members: readonly Buffer[]): void {
  let total = 0;
  for (const member of members) total += member.length;
  const written = writevSync(fd, members);
  if (written < total) {
    // A short write (a full disk, a signal): the rest, in order.
    writeFully(fd, Buffer.concat(members, total).subarray(written));
  }
}

/** The capture file as a worker thread appends to it; the thread that opened it syncs and closes it. */
export function sharedSink({ fd, name }: SharedFile): RecordSink {
  return { name, append: (members) => appendTo(fd, members) };
}

export class CaptureFile implements RecordSink {
  #dirty = false;
  /** Whether worker threads append too: their writes do not mark the file dirty, so every sync syncs. */
  #shared = false;
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

  append(members: readonly Buffer[]): void {
    if (this.#closed) return;
    appendTo(this.fd, members);
    this.#dirty = true;
  }

  /** The file for worker threads to append to, until it is closed (which waits for them to have stopped). */
  share(): SharedFile {
    this.#shared = true;
    return { fd: this.fd, name: this.name };
  }

  sync(): Promise<void> {
    this.#syncing = this.#syncing.then(async () => {
      if (!(this.#dirty || this.#shared) || this.#closed) return;
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
