/**
 * The derive journal, `derive.ndjson` beside the crawl journal in the staging directory: what a derived crawl
 * learned from fetched documents (its seed and sample size, the list entries, the linkages of links-only
 * relationships, the samples), one JSON line each, so that `--resume` rebuilds its decisions without fetching
 * again. A line is written before the crawl journal records its document; a line cut short by a kill is ignored.
 */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { DERIVE_JOURNAL_FILE } from '../store/journal.js';
import type { DeriveRecord } from './derive-run.js';
import type { SampleSize } from './sample.js';

export { DERIVE_JOURNAL_FILE };

function isSampleSize(value: unknown): value is SampleSize {
  const size = value as { fraction?: unknown; count?: unknown } | null;
  if (typeof size !== 'object' || size === null) return false;
  if (typeof size.fraction === 'number') return size.fraction >= 0 && size.fraction <= 1;
  return Number.isSafeInteger(size.count) && (size.count as number) > 1;
}

/** Whether a parsed line is one this tool wrote (a damaged or planted line is skipped, never trusted). */
function isRecord(value: unknown): value is DeriveRecord {
  const line = value as Record<string, unknown> | null;
  if (typeof line !== 'object' || line === null) return false;
  if (line.t === 'derive') return Number.isSafeInteger(line.seed) && isSampleSize(line.sample);
  return (
    (line.t === 'list' || line.t === 'linkage' || line.t === 'sample') &&
    typeof line.url === 'string' &&
    typeof line.text === 'string'
  );
}

/** The lines of a derive journal, or null when there is none. */
export function readDeriveJournal(file: string): DeriveRecord[] | null {
  if (!existsSync(file)) return null;
  const lines: DeriveRecord[] = [];
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (text === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    if (isRecord(value)) lines.push(value);
  }
  return lines;
}

export class DeriveJournal {
  readonly #fd: number;

  constructor(file: string) {
    this.#fd = openSync(file, 'a');
  }

  append(line: DeriveRecord): void {
    writeSync(this.#fd, `${JSON.stringify(line)}\n`);
  }

  close(): void {
    closeSync(this.#fd);
  }
}
