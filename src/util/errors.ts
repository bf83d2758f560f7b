/**
 * Every failure a user can meet, whichever command meets it, as a class with a sentence that says what happened and
 * what to try. The CLI maps them to exit codes in one place (`runMain` in src/cli/main.ts) through `exitCode`. A
 * failure caused by another error keeps it as its `cause`. Errors that never leave their stage (thrown and caught
 * within it, such as a body that must be fetched again) are defined beside the code that throws them.
 */
import { printable, quoteUntrusted } from './safe-text.js';
import { plural } from './plural.js';

export const ExitCode = {
  ok: 0,
  /** The command could not do its job (network, HTTP status, bad source, file system). */
  failed: 1,
  /** The command line is wrong. */
  usage: 2,
  /** Validation or verification found errors (`crawl --strict`, `verify`). */
  invalid: 3,
  /** The snapshot is partial (`verify` on a snapshot published with --allow-partial). */
  partial: 4,
  sigint: 130,
  sigterm: 143,
} as const;

export class CvSnapshotError extends Error {
  readonly exitCode: number = ExitCode.failed;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class UsageError extends CvSnapshotError {
  override readonly exitCode: number = ExitCode.usage;
}

/** What a FetchError suggests, by what went wrong last. */
export const FETCH_HINTS = {
  retry: 'Check that the service is up, or try again with more --retries or a longer --timeout.',
  client: 'Check the URL and any --header credentials.',
  maxBytes: 'If the document really is that large, raise --max-bytes.',
  host: 'Check the host name in the URL (and the network or proxy settings).',
  refused: 'Nothing is listening there: check the host and port in the URL, and that the service is running.',
  encoding: 'cv-snapshot reads gzip, br and deflate bodies; this one cannot be stored as it was sent.',
  text:
    'The service sends text that is not valid in its character set; --allow-partial publishes the snapshot ' +
    'without it.',
} as const;

export type FetchHint = keyof typeof FETCH_HINTS;

/**
 * A document could not be fetched: its URL, what went wrong last, and how many attempts were made. The reason may
 * quote the server, so it is made safe to print.
 */
export class FetchError extends CvSnapshotError {
  readonly reason: string;
  /** What the message suggests. */
  readonly hint: FetchHint;
  constructor(
    readonly url: string,
    reason: string,
    readonly attempts: number,
    readonly status?: number,
    hint?: FetchHint,
  ) {
    const safeReason = quoteUntrusted(reason);
    const suggestion =
      hint ?? (status !== undefined && status >= 400 && status < 500 && status !== 429 ? 'client' : 'retry');
    super(
      `${url} could not be fetched: ${safeReason} (after ${plural(attempts, 'attempt')}). ` + FETCH_HINTS[suggestion],
    );
    this.reason = safeReason;
    this.hint = suggestion;
  }
}

/** A response that is not a JSON document (HTML, plain text, broken JSON). */
export class NotJsonError extends CvSnapshotError {
  constructor(
    readonly url: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(
      `${url} did not answer with JSON (${quoteUntrusted(detail)}). ` +
        'Is this the JSON:API address of a Controlled Vocabulary Service? Remove any ?format=api from it.',
      options,
    );
  }
}

/**
 * A JSON answer that cannot be used as a document as it was sent (nested too deep, in a character set that cannot
 * be decoded). Like a document that cannot be fetched, it ends the crawl, or with --allow-partial is missing.
 */
export class UnusableDocumentError extends CvSnapshotError {
  constructor(
    readonly url: string,
    detail: string,
    hint: string,
    options?: ErrorOptions,
  ) {
    super(`${url} cannot be stored: ${quoteUntrusted(detail)}. ${hint}`, options);
  }
}

/** The root index leads nowhere the crawl may go: its collections, or the root itself, are outside the root URL. */
export class RootScopeError extends CvSnapshotError {
  constructor(
    readonly url: string,
    detail: string,
  ) {
    super(`${url}: ${printable(detail)}`);
  }
}

/** The root URL answered JSON, but not a CV root index. */
export class NotRootIndexError extends CvSnapshotError {
  constructor(
    readonly url: string,
    detail: string,
  ) {
    super(
      `${url} is not the root index of a Controlled Vocabulary Service: ${quoteUntrusted(detail)}. ` +
        'Give the API root, such as https://sms-cv.helmholtz.cloud/sms/cv/api/v1/.',
    );
  }
}

/** `--strict` and validation errors: nothing was published; the finished tree is kept in the staging directory. */
export class StrictValidationError extends CvSnapshotError {
  override readonly exitCode: number = ExitCode.invalid;
  constructor(
    readonly errorCount: number,
    readonly reportPath: string,
    /** What to run next: the same command with --resume and without --strict publishes the kept tree. */
    howToGoOn: string,
  ) {
    super(
      `Validation found ${plural(errorCount, 'error')} and --strict is set, so nothing was ` +
        `published. The findings are in ${reportPath}. ${howToGoOn}`,
    );
  }
}

/** The crawl found more URLs than --max-documents allows: the source may generate links endlessly. */
export class TooManyDocumentsError extends CvSnapshotError {
  constructor(
    readonly limit: number,
    readonly url: string,
  ) {
    super(
      `The crawl found more than ${limit} URLs (--max-documents) when it reached ${url}; the source may generate ` +
        'links endlessly. Nothing was published. If the service really is that large, raise --max-documents.',
    );
  }
}

/** The output directory cannot be used or replaced. */
export class OutputDirError extends CvSnapshotError {}

/** Another crawl holds the lock on the same --out. */
export class CrawlLockedError extends OutputDirError {}

/**
 * A file-system call failed (no space, permission, read-only, a file in the way…): which path, what happened, and
 * what to try, from the error code (src/store/fs-errors.ts).
 */
export class FileSystemError extends CvSnapshotError {
  constructor(
    message: string,
    readonly code: string,
    readonly path: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** `verify` found a snapshot that does not match its manifest, links or schemas. */
export class VerifyError extends CvSnapshotError {
  override readonly exitCode: number = ExitCode.invalid;
}

/**
 * A collection's pages disagreed each time they were fetched (src/pipeline/settle-collections.ts): publishing would
 * list some records twice and miss others. `--allow-partial` publishes with a finding instead.
 */
export class ShiftingCollectionError extends CvSnapshotError {}

/**
 * A list's later pages announced more pages than its first page did, and the crawl held it to what the first page
 * announced (src/crawl/discovery.ts): publishing would leave pages out unsaid. `--allow-partial` publishes with a
 * finding instead.
 */
export class UnboundedListError extends CvSnapshotError {}

/**
 * `--resume` found the source in another state than the one the interrupted crawl began with: continuing would mix
 * two states in one snapshot.
 */
export class SourceChangedError extends CvSnapshotError {}

/** The crawl stopped on SIGINT or SIGTERM; the work so far is kept for --resume. */
export class InterruptedError extends CvSnapshotError {
  override readonly exitCode: number;
  /** `previous`: the snapshot at --out that stays as it was, or null when there was none. */
  constructor(signal: string, detail: string, previous: string | null) {
    super(
      `Interrupted by ${signal}; nothing was published` +
        (previous === null ? '' : ` and the snapshot at ${previous} is untouched`) +
        `. ${detail}`.trimEnd(),
    );
    this.exitCode = signal === 'SIGTERM' ? ExitCode.sigterm : ExitCode.sigint;
  }
}

/**
 * `verify`, `diff` or `pack` stopped on SIGINT or SIGTERM (or a library caller's abort): the work is abandoned and
 * its temporary files are removed. The command adds what is left as it was (`withDetail`).
 */
export class StoppedError extends CvSnapshotError {
  override readonly exitCode: number;
  constructor(
    readonly signalName: string,
    detail = '',
  ) {
    super(`Interrupted by ${signalName}. ${detail}`.trimEnd());
    this.exitCode = signalName === 'SIGTERM' ? ExitCode.sigterm : ExitCode.sigint;
  }

  withDetail(detail: string): StoppedError {
    return new StoppedError(this.signalName, detail);
  }
}

/** The StoppedError for an aborted `signal`: the CLI aborts with the signal's name as the reason. */
export function stoppedBy(signal: AbortSignal): StoppedError {
  const reason: unknown = signal.reason;
  return new StoppedError(reason === 'SIGTERM' || reason === 'SIGINT' ? reason : 'an abort');
}

/** Throws StoppedError when `signal` has fired: the offline commands call it between steps of their loops. */
export function throwIfStopped(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw stoppedBy(signal);
}

/** A crawl that failed after doing some work: the cause's message, and how to continue. */
export class CrawlStoppedError extends CvSnapshotError {
  override readonly exitCode: number;
  constructor(
    override readonly cause: CvSnapshotError,
    detail: string,
  ) {
    super(`${cause.message} ${detail}`);
    this.exitCode = cause.exitCode;
  }
}

/**
 * An archive could not be written or read: the snapshot holds something a deterministic archive cannot carry, or
 * the archive is damaged or unsafe to extract. The message names the file or entry and what to do about it.
 */
export class ArchiveError extends CvSnapshotError {}

/** `diff` could not read a snapshot: the message names the snapshot and file, and suggests `verify`. */
export class DiffError extends CvSnapshotError {}

/** The export cannot be written: a file of the snapshot is unusable, a name is wrong, the output is in the way. */
export class ExportError extends CvSnapshotError {}

/**
 * The input of the `catalogue` command is not a sound snapshot: a catalogue is built only from files that match their
 * checksums.
 */
export class UnsoundSnapshotError extends CvSnapshotError {}

/** `serve` cannot start: the directory is not a snapshot, or the port cannot be had. */
export class ServeError extends CvSnapshotError {}

/** The sample API cannot start: its port is taken, or its address is not this machine's. */
export class SampleApiError extends CvSnapshotError {}
