/**
 * The crawl journal: one JSON line per settled URL, appended to `<out>.staging/journal.ndjson`, so that `--resume`
 * can continue an interrupted crawl without refetching what is done. A line is written only after the document's
 * file is complete, each line is written at once and synced to disk in batches; after `kill -9` the last line may be cut
 * short, and a cut line is ignored. A `done` line carries the links the document discovered, so the set of URLs
 * still to fetch can be rebuilt from the journal alone.
 */
import { closeSync, createReadStream, existsSync, fdatasync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { createInterface } from 'node:readline';
import type { Finding } from '../validate/finding.js';
import type { DocumentSummary } from '../validate/summary.js';

export const JOURNAL_FILE = 'journal.ndjson';

export type JournalEntry =
  | {
      t: 'doc';
      url: string;
      /** The file written, with its hash and size; null when the layout refused the URL. */
      file: { path: string; sha256: string; size: number } | null;
      summary: DocumentSummary;
      /** Records on a list page (for the collection counts). */
      records: number | null;
      /** Response headers of the root index that identify the source's state. */
      source?: { etag: string | null; lastModified: string | null };
      discovered: string[];
    }
  | { t: 'settled'; url: string; discovered: string[] }
  | { t: 'finding'; finding: Finding };

const datasync = promisify(fdatasync);

export class Journal {
  private dirty = false;
  private syncing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  private constructor(private readonly fd: number) {
    // Each entry is written at once, synchronously (a kill -9 loses none that were appended, and no thread-pool
    // round trip per document); syncing to disk is batched.
    this.timer = setInterval(() => void this.sync(), 500);
    this.timer.unref();
  }

  static open(file: string): Journal {
    const fd = openSync(file, 'a+');
    const { size } = fstatSync(fd);
    if (size > 0) {
      // After a crash the last line may be cut short: end it, so that new entries start on a line of their own.
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) writeSync(fd, '\n');
    }
    return new Journal(fd);
  }

  /** Every complete entry of an existing journal, in order, streamed (a journal can be large). */
  static async *read(file: string): AsyncGenerator<JournalEntry> {
    if (!existsSync(file)) return;
    const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line === '') continue;
      let entry: JournalEntry;
      try {
        entry = JSON.parse(line) as JournalEntry;
      } catch {
        continue; // A line cut short by a crash: the document it names is fetched again.
      }
      yield entry;
    }
  }

  append(entry: JournalEntry): void {
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
    this.dirty = true;
  }

  /** Syncs what was appended to disk. */
  sync(): Promise<void> {
    this.syncing = this.syncing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      await datasync(this.fd);
    });
    return this.syncing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sync();
    closeSync(this.fd);
  }
}
