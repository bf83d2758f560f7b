/**
 * Continuing an interrupted run: its journal (src/store/journal.ts) replayed into the run's state, trusting only the
 * files that still hash as journaled.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { htmlSafeJsonBytes } from '../json/html-safe.js';
import { Journal } from '../store/journal.js';
import type { OutputPaths } from '../store/output-dir.js';
import type { RunState } from './run-state.js';

/**
 * The SHA-256 of a stored document; null when it cannot be read, or when it holds a markup character unescaped: an
 * older version stored it before docs/snapshot-format.md#json-that-is-never-markup, and it is fetched again rather
 * than published raw beside escaped documents.
 */
async function storedHash(file: string): Promise<string | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return null;
  }
  if (htmlSafeJsonBytes(bytes) !== bytes) return null;
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Replays the journal of an interrupted run into `state`. A document whose file does not hash as journaled was cut
 * short or changed, and one an older version stored unescaped is out of date: its entry is skipped, so the document
 * is fetched again.
 */
export async function replayJournal(paths: OutputPaths, state: RunState): Promise<void> {
  for await (const entry of Journal.read(paths.journal)) {
    if (entry.t === 'doc' && entry.file !== null) {
      const actual = await storedHash(path.join(paths.stagedTree, ...entry.file.path.split('/')));
      if (actual !== entry.file.sha256) continue;
    }
    state.apply(entry);
  }
}
