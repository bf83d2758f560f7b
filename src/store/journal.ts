/**
 * The crawl journal: one JSON line per settled URL, appended to `<out>.staging/journal.ndjson`, so that `--resume`
 * can continue an interrupted crawl without refetching what is done. A line is written only after the document's
 * file is complete, each line is written at once and synced to disk in batches; after `kill -9` the last line may be
 * cut short, and a cut line is ignored. A `done` line carries the links the document discovered, so the set of URLs
 * still to fetch can be rebuilt from the journal alone.
 */
import { closeSync, createReadStream, existsSync, fdatasync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { createInterface } from 'node:readline';
import { OutputDirError } from '../errors.js';
import type { Finding } from '../validate/finding.js';
import { documentSummary, type DocumentSummary } from '../validate/summary.js';

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

const isString = (value: unknown): value is string => typeof value === 'string';
const isStrings = (value: unknown): boolean => Array.isArray(value) && value.every(isString);
const isUrl = (value: unknown): boolean => isString(value) && URL.canParse(value);

/** A path inside the tree, as the layout writes them: relative, and no segment that leads elsewhere. */
function isTreePath(value: unknown): boolean {
  return (
    isString(value) &&
    value
      .split('/')
      .every(
        (segment) =>
          segment !== '' && segment !== '.' && segment !== '..' && !segment.includes('\\') && !segment.includes('\0'),
      )
  );
}

function isFile(value: unknown): boolean {
  if (value === null) return true;
  const file = value as { path?: unknown; sha256?: unknown; size?: unknown };
  return (
    typeof value === 'object' &&
    isTreePath(file.path) &&
    isString(file.sha256) &&
    /^[0-9a-f]{64}$/.test(file.sha256) &&
    Number.isSafeInteger(file.size)
  );
}

function isFinding(value: unknown): boolean {
  const finding = value as Partial<Record<keyof Finding, unknown>> | null;
  return (
    typeof finding === 'object' &&
    finding !== null &&
    isString(finding.url) &&
    isString(finding.pointer) &&
    isString(finding.rule) &&
    isString(finding.message) &&
    (finding.severity === 'error' || finding.severity === 'warning')
  );
}

/**
 * Whether a parsed line is an entry this tool wrote. A journal is read back into the crawl's state and names files
 * to read, so a line of another shape (a journal planted or damaged) must not get that far.
 */
function isEntry(value: unknown): value is JournalEntry {
  const entry = value as Record<string, unknown> | null;
  if (typeof entry !== 'object' || entry === null) return false;
  if (entry.t === 'finding') return isFinding(entry.finding);
  if (!isUrl(entry.url) || !isStrings(entry.discovered)) return false;
  if (entry.t === 'settled') return true;
  const source = entry.source as { etag?: unknown; lastModified?: unknown } | null | undefined;
  const nullOrString = (value: unknown) => value === null || isString(value);
  const validSource =
    source === undefined ||
    (typeof source === 'object' && source !== null && nullOrString(source.etag) && nullOrString(source.lastModified));
  return (
    entry.t === 'doc' &&
    isFile(entry.file) &&
    (entry.records === null || Number.isSafeInteger(entry.records)) &&
    validSource &&
    documentSummary.safeParse(entry.summary).success
  );
}

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
      if (!isEntry(entry)) {
        throw new OutputDirError(
          `Line ${number} of ${file} is not an entry cv-snapshot writes: the journal is damaged or not this tool's, ` +
            'so the crawl kept there cannot be resumed. Start over with --fresh.',
        );
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
