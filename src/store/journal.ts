/**
 * The crawl journal: one JSON line per settled URL, appended to `<out>.staging/journal.ndjson`, so that `--resume`
 * can continue an interrupted crawl without refetching what is done. A line is written only after the document's
 * file is complete, the lines of one turn of the event loop are written at the end of that turn, and they are synced
 * to disk in batches; after `kill -9` the last line may be cut short, and a cut line is ignored. A `doc` line (and a
 * `settled` one, for a redirect or a dead link) carries the links the URL discovered, so the set of URLs still to
 * fetch can be rebuilt from the journal alone. Lines are checked against the schema below when they are read back.
 */
import { closeSync, createReadStream, existsSync, fdatasync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { createInterface } from 'node:readline';
import { OutputDirError } from '../util/errors.js';
import * as z from 'zod';
import { RULE_NAMES } from '../validate/rules.js';
import { documentSummary } from '../validate/summary.js';

export const JOURNAL_FILE = 'journal.ndjson';
/** What a derived crawl learned, for --resume (src/derive/derive-journal.ts writes it). */
export const DERIVE_JOURNAL_FILE = 'derive.ndjson';

/** A path inside the tree, as the layout writes them: relative, and no segment that leads elsewhere. */
function isTreePath(value: string): boolean {
  return value
    .split('/')
    .every(
      (segment) =>
        segment !== '' && segment !== '.' && segment !== '..' && !segment.includes('\\') && !segment.includes('\0'),
    );
}

const url = z.string().refine((value) => URL.canParse(value), 'not a URL');

const finding = z.object({
  url: z.string(),
  pointer: z.string(),
  rule: z.enum(RULE_NAMES),
  severity: z.enum(['error', 'warning']),
  message: z.string(),
});

const journalSource = z.object({
  etag: z.string().nullable(),
  lastModified: z.string().nullable(),
  /** SHA-256 of the root index as parsed and written back (stringifyJson), before its links were rewritten. */
  sha256: z.string().optional(),
});

export type JournalSource = z.infer<typeof journalSource>;

/**
 * The lines a journal holds. A journal is read back into the crawl's state and names files to read, so a line of
 * another shape (a journal planted or damaged) must not get that far.
 */
const journalEntry = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('doc'),
    url,
    /** The file written, with its hash and size; null when the layout refused the URL. */
    file: z
      .object({
        path: z.string().refine(isTreePath, 'not a path inside the tree'),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
        size: z.int(),
      })
      .nullable(),
    summary: documentSummary,
    /** Records on a list page (for the collection counts). */
    records: z.int().nullable(),
    /** Given for a relationship document stored with `data: null`: the relationship leads nowhere. */
    leadsNowhere: z.literal(true).optional(),
    /** What identifies the source's state: the root index's response headers, and its content's hash. */
    source: journalSource.optional(),
    discovered: z.array(z.string()),
  }),
  z.object({ t: z.literal('settled'), url, discovered: z.array(z.string()) }),
  z.object({ t: z.literal('finding'), finding }),
]);

export type JournalEntry = z.infer<typeof journalEntry>;

const datasync = promisify(fdatasync);

/** Where a line first differs from an entry, for the error: the member's path and what is wrong with it. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'not an entry';
  const where = issue.path.length === 0 ? 'the line' : issue.path.join('.');
  return `${where}: ${issue.message}`;
}

export class Journal {
  private dirty = false;
  /** Lines appended and not yet written. */
  private pending = '';
  private flushScheduled = false;
  private syncing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  private constructor(private readonly fd: number) {
    // The entries of one turn of the event loop are written together, synchronously, at the end of that turn (a
    // kill -9 loses at most those of the turn, and no thread-pool round trip per document); syncing to disk is
    // batched too.
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
    let number = 0;
    for await (const line of lines) {
      number += 1;
      if (line === '') continue;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        continue; // A line cut short by a crash: the document it names is fetched again.
      }
      const parsed = journalEntry.safeParse(entry);
      if (!parsed.success) {
        throw new OutputDirError(
          `Line ${number} of ${file} is not an entry cv-snapshot writes (${firstIssue(parsed.error)}): the journal ` +
            "is damaged or not this tool's, so the crawl kept there cannot be resumed. Start over with --fresh.",
        );
      }
      yield parsed.data;
    }
  }

  /** Adds an entry; it is written with the others of this turn of the event loop, in one call. */
  append(entry: JournalEntry): void {
    this.pending += `${JSON.stringify(entry)}\n`;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes the entries appended since the last write. */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending === '') return;
    writeSync(this.fd, this.pending);
    this.pending = '';
    this.dirty = true;
  }

  /** Syncs what was appended to disk. */
  sync(): Promise<void> {
    this.flush();
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
