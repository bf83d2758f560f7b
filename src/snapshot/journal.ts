/**
 * The crawl journal: one JSON line per settled URL, appended to `<out>.staging/journal.ndjson`, so that `--resume`
 * can continue an interrupted crawl without refetching what is done. A line is written only after the document's
 * file is complete, each line is written at once and synced to disk in batches; after `kill -9` the last line may be cut
 * short, and a cut line is ignored. A `done` line carries the links the document discovered, so the set of URLs
 * still to fetch can be rebuilt from the journal alone.
 */
import { createReadStream, existsSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
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

export class Journal {
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  private readonly timer: NodeJS.Timeout;

  private constructor(private readonly handle: FileHandle) {
    // Each entry is written at once (a kill -9 loses none that were appended); syncing to disk is batched.
    this.timer = setInterval(() => void this.sync(), 500);
    this.timer.unref();
  }

  static async open(file: string): Promise<Journal> {
    const handle = await open(file, 'a+');
    const { size } = await handle.stat();
    if (size > 0) {
      // After a crash the last line may be cut short: end it, so that new entries start on a line of their own.
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) await handle.write('\n');
    }
    return new Journal(handle);
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

  append(entry: JournalEntry): Promise<void> {
    const line = `${JSON.stringify(entry)}\n`;
    this.writing = this.writing.then(async () => {
      await this.handle.write(line);
      this.dirty = true;
    });
    return this.writing;
  }

  /** Waits for every appended entry and syncs them to disk. */
  sync(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      await this.handle.datasync();
    });
    return this.writing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sync();
    await this.handle.close();
  }
}
