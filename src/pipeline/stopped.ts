/** How a run that stops early ends: its work kept for --resume (or removed), and the error that says what to do. */
import {
  CrawlLockedError,
  CrawlStoppedError,
  CvSnapshotError,
  FileSystemError,
  InterruptedError,
  SourceChangedError,
  StrictValidationError,
} from '../util/errors.js';
import { fileSystemError, OUT_OF_SPACE } from '../store/fs-errors.js';
import type { OutputPaths } from '../store/output-dir.js';
import { removeStaging, type OpenedStaging } from '../store/staging.js';
import type { SnapshotOptions } from './snapshot-options.js';

/**
 * The error to report when a run stops early, after keeping its work in staging for --resume (or, when there is
 * none, removing the staging directory), and releasing the lock.
 */
export async function stopped(
  error: unknown,
  paths: OutputPaths,
  opened: OpenedStaging,
  run: { keep: boolean; started: boolean; documents: number; previous: string | null },
  options: SnapshotOptions,
): Promise<unknown> {
  error = fileSystemError(error, `Crawling into ${paths.out}`);
  if (run.keep) await opened.lock.release().catch(() => undefined);
  else await removeStaging(paths, opened.lock).catch(() => undefined);
  // Refused before the crawl started, stopped with nothing worth keeping, or the staging directory is another
  // crawl's now: the error says all there is to say.
  // A source that changed since the crawl began cannot be resumed: the error names the command that starts afresh.
  const final = error instanceof StrictValidationError || error instanceof CrawlLockedError;
  if (!run.started || !run.keep || final || error instanceof SourceChangedError) {
    if (options.signal?.aborted) {
      return new InterruptedError(String(options.signal.reason ?? 'SIGINT'), '', run.previous);
    }
    return error;
  }
  const what = run.documents > 0 ? `The ${run.documents} documents fetched so far are` : 'The work so far is';
  const when = error instanceof FileSystemError && OUT_OF_SPACE.has(error.code) ? 'once there is space again, ' : '';
  const howToContinue =
    `${what} kept in ${paths.staging}: ${when}run the same command with --resume to continue, or with --fresh to ` +
    'start over.';
  if (options.signal?.aborted) {
    return new InterruptedError(String(options.signal.reason ?? 'SIGINT'), howToContinue, run.previous);
  }
  if (error instanceof CvSnapshotError) return new CrawlStoppedError(error, howToContinue);
  return error;
}
