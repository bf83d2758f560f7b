/**
 * `verify` of a snapshot crawled with `--warc` (docs/capture.md#verify): its capture files are listed in SHA256SUMS,
 * read as WARC, and every document the crawl fetched has a response record, with status 200, for its URL. The
 * complete collections were built, not fetched; with `--derive` the documents derived were never fetched either,
 * and the manifest counts them: that many documents may lack a response, and no more.
 */
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { CAPTURE_FILE } from '../capture/capture-file.js';
import { readWarc, WarcFormatError } from '../capture/warc-reader.js';
import { throwIfStopped } from '../util/errors.js';
import type { Layout } from '../format/layout.js';
import { META_DIR } from '../store/sums.js';
import type { Manifest } from '../format/manifest.js';
import type { FileIndex } from './file-index.js';
import type { Problems } from './problems.js';
import { isDocumentFile } from './tree-check.js';

/** The largest record read: a response of the crawl's largest --max-bytes with room for its head. */
const MAX_RECORD_BYTES = 1 << 30;
/** Documents without a response named one by one; the rest are counted. */
const NAMED_UNRECORDED = 20;
/** Records read between two turns of the event loop. */
const RECORDS_PER_TURN = 256;

/** The capture files SHA256SUMS lists, in the order they were written. */
function listedCaptures(files: FileIndex): string[] {
  const captures: Array<{ file: string; number: number }> = [];
  for (let i = 0; i < files.size; i += 1) {
    if (!files.isListed(i)) continue;
    const file = files.name(i);
    const [dir, name, ...rest] = file.split('/');
    const match = dir === META_DIR && rest.length === 0 ? CAPTURE_FILE.exec(name ?? '') : null;
    if (match !== null) captures.push({ file, number: Number(match[1]) });
  }
  return captures.sort((a, b) => a.number - b.number).map(({ file }) => file);
}

/** The URLs with a response record of status 200 in the capture files; a file that does not read is a problem. */
async function recordedUrls(
  dir: string,
  captures: readonly string[],
  problems: Problems,
  signal: AbortSignal | undefined,
): Promise<Set<string>> {
  const urls = new Set<string>();
  for (const file of captures) {
    let count = 0;
    try {
      for (const record of readWarc(path.join(dir, ...file.split('/')), MAX_RECORD_BYTES)) {
        if (++count % RECORDS_PER_TURN === 0) {
          await nextTurn();
          throwIfStopped(signal);
        }
        const uri = record.fields.get('warc-target-uri');
        if (record.fields.get('warc-type') !== 'response' || uri === undefined) continue;
        const statusLine = record.block.toString('latin1', 0, Math.min(record.block.length, 64)).split('\r\n')[0]!;
        if (/^HTTP\/\d(?:\.\d)? 200(?: |$)/.test(statusLine)) urls.add(uri);
      }
    } catch (error) {
      if (!(error instanceof WarcFormatError) && typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
      problems.add(`${file} cannot be read as a capture: ${(error as Error).message}`);
    }
  }
  return urls;
}

export async function checkCapture(
  dir: string,
  files: FileIndex,
  layout: Layout,
  manifest: Manifest,
  problems: Problems,
  signal: AbortSignal | undefined,
): Promise<void> {
  const captures = listedCaptures(files);
  if (captures.length === 0) {
    problems.add(
      `The manifest says the crawl recorded its exchanges (--warc), but no ${META_DIR}/capture-*.warc.gz is ` +
        'listed in SHA256SUMS.',
    );
    return;
  }
  const urls = await recordedUrls(dir, captures, problems, signal);
  const unrecorded: string[] = [];
  let count = 0;
  for (let i = 0; i < files.size; i += 1) {
    const file = files.name(i);
    if (!files.isListed(i) || !isDocumentFile(file, layout) || layout.isCollectionIndexFile(file)) continue;
    const url = layout.sourceUrlOfServedPath(layout.servedPathOfFile(file));
    if (urls.has(url)) continue;
    count += 1;
    if (unrecorded.length < NAMED_UNRECORDED) unrecorded.push(url);
  }
  const derived = manifest.derive?.derived ?? 0;
  if (count <= derived) return;
  const what = derived > 0 ? `, beyond the ${derived} the manifest says were derived,` : '';
  const named = unrecorded.join(', ') + (count > unrecorded.length ? `, and ${count - unrecorded.length} more` : '');
  problems.add(
    `${count} documents${what} have no response with status 200 in the capture (${captures.join(', ')}): ${named}.`,
  );
}
