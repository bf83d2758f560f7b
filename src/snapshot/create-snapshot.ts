/**
 * `crawl` as a library call: the whole pipeline of DESIGN.md §2, from the root URL to a published snapshot.
 * Each stage lives in its own module; this one wires them together: staging, journal, crawl, finalize, publish.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createClock, type Clock } from '../clock.js';
import { crawl, type CrawledDocument } from '../crawl/crawler.js';
import { Fetcher } from '../crawl/fetcher.js';
import { ProgressLine, type ProgressMode } from '../crawl/progress.js';
import { RateLimiter } from '../crawl/rate-limiter.js';
import {
  CrawlLockedError,
  CrawlStoppedError,
  CvSnapshotError,
  FileSystemError,
  InterruptedError,
  OutputDirError,
  StrictValidationError,
  UsageError,
} from '../errors.js';
import { stringifyJson } from '../json/parse-json.js';
import { canonicalRoot, InvalidUrlError } from '../url/canonical-url.js';
import { InvariantChecker } from '../validate/invariants.js';
import { formatSummary, type ValidationReport } from '../validate/report.js';
import { validateDocument } from '../validate/validate-document.js';
import { USER_AGENT } from '../version.js';
import { finalizeSnapshot } from './finalize.js';
import { fileSystemError, OUT_OF_SPACE } from './fs-errors.js';
import { Journal, type JournalEntry } from './journal.js';
import { Layout } from './layout.js';
import { REPORT_PATH, SUMS_PATH, type CollectionCounts, type CollectionIndexMode, type Manifest } from './manifest.js';
import { assertOutsideToolDirs, inspectOut, outputPaths, type OutInspection, type OutputPaths } from './output-dir.js';
import { publish, recoverInterruptedPublish } from './publish.js';
import {
  assertLinksWork,
  openStaging,
  prepareStaging,
  removeStaging,
  replayJournal,
  type OpenedStaging,
} from './staging.js';
import { createLinkRewriter, rewriteDocumentLinks, type LinkMode } from './rewrite-links.js';
import { RunState } from './run-state.js';
import { FileCollisionError, TreeWriter } from './writer.js';

export interface SnapshotOptions {
  /** The API root, such as https://sms-cv.helmholtz.cloud/sms/cv/api/v1/. */
  rootUrl: string;
  /** Directory to publish into; replaced only when the new snapshot is complete. */
  out: string;
  /** Requests in flight at once (default `DEFAULTS.concurrency`). */
  concurrency?: number;
  /** Retries per URL after the first attempt (default `DEFAULTS.retries`). */
  retries?: number;
  /** Milliseconds allowed for response headers, and between body chunks (default `DEFAULTS.timeoutMs`). */
  timeoutMs?: number;
  /** Largest response accepted, in bytes after decompression (default `DEFAULTS.maxBytes`). */
  maxBytes?: number;
  /** Requests per second, retries included (default: no limit). */
  rate?: number;
  /** How links are written (default `DEFAULTS.links`); `absolute` needs `baseUrl`. */
  links?: LinkMode;
  /** The address the mirror will have, with `links: 'absolute'`. */
  baseUrl?: string;
  /** What the bare collection URL holds (default `DEFAULTS.collectionIndex`). */
  collectionIndex?: CollectionIndexMode;
  /** Extra request headers as `Name: value` (credentials); values never reach the snapshot or logs. */
  headers?: string[];
  /** Publish nothing when validation finds an error. */
  strict?: boolean;
  /** Discard a staging directory left by an earlier run. */
  fresh?: boolean;
  /** Continue the crawl that a staging directory holds. */
  resume?: boolean;
  /** Stop with an error past this many URLs (default `DEFAULTS.maxDocuments`). */
  maxDocuments?: number;
  /** Publish even when documents cannot be fetched; the manifest marks the snapshot partial and lists them. */
  allowPartial?: boolean;
  signal?: AbortSignal;
  clock?: Clock;
  /** Where the progress line goes, and how. */
  progress?: { stream: NodeJS.WritableStream; mode: ProgressMode; intervalMs?: number };
  /** Backoff base for retries (tests shorten it). */
  backoffBaseMs?: number;
}

export interface SnapshotResult {
  out: string;
  root: string;
  documents: number;
  collections: Record<string, CollectionCounts>;
  report: ValidationReport;
  summary: string;
  /** Documents taken from the staging directory of an interrupted run (with --resume). */
  resumed: number;
  /** Documents that could not be fetched (with --allow-partial); the snapshot is partial when any. */
  missing: string[];
  requests: number;
  retries: number;
  elapsedMs: number;
}

type Defaulted = 'concurrency' | 'retries' | 'timeoutMs' | 'maxBytes' | 'maxDocuments' | 'links' | 'collectionIndex';

/** The defaults of the options that have one: the command line shows and applies these same values. */
export const DEFAULTS: Readonly<Required<Pick<SnapshotOptions, Defaulted>>> = {
  concurrency: 8,
  retries: 5,
  timeoutMs: 30_000,
  maxBytes: 64 * 1024 * 1024,
  maxDocuments: 2_000_000,
  links: 'relative',
  collectionIndex: 'complete',
};

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Tabs, visible ASCII and Latin-1: a line break would end the header and start another one.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Parses one `Name: value` header. Its UsageError names the header when its name is valid, and never shows the
 * value (nor an invalid name, which may be a credential given without its name).
 */
export function parseHeader(line: string): { name: string; value: string } {
  const colon = line.indexOf(':');
  // Only spaces and tabs are trimmed: a line break at either end is refused like one inside.
  const trim = (text: string): string => text.replace(/^[ \t]+|[ \t]+$/g, '');
  const name = colon >= 0 ? trim(line.slice(0, colon)) : '';
  if (!HEADER_NAME.test(name)) {
    const what =
      colon < 0
        ? 'has no colon'
        : name === ''
          ? 'has no name before its colon'
          : 'has a name that is not a header name';
    throw new UsageError(
      `--header takes "Name: value" (such as "Authorization: Bearer …"), and one ${what}; ` +
        'it is not shown, as it may hold a credential.',
    );
  }
  const value = trim(line.slice(colon + 1));
  if (!HEADER_VALUE.test(value)) {
    throw new UsageError(
      `--header ${name}: the value holds a line break, another control character or a character beyond Latin-1, ` +
        'which a header cannot carry; check how it was quoted (the value is not shown).',
    );
  }
  return { name, value };
}

/** Parses `Name: value` headers; throws UsageError naming the bad one (never showing its value). */
function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const { name, value } = parseHeader(line);
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

/** A URL's `user:password@`, shown as `***@`: a password is never repeated in a message. */
function redactUserinfo(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}

function hasCredentials(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return parsed.username !== '' || parsed.password !== '';
}

function rootOf(rootUrl: string): string {
  const example = 'Give the API root URL, such as https://sms-cv.helmholtz.cloud/sms/cv/api/v1/.';
  const schemeless = !/^[a-z][a-z0-9+.-]*:\/\//i.test(rootUrl) && URL.canParse(`http://${rootUrl}`);
  if (hasCredentials(rootUrl) || (schemeless && hasCredentials(`http://${rootUrl}`))) {
    throw new UsageError(
      `The root URL ${redactUserinfo(schemeless ? `http://${rootUrl}` : rootUrl)} holds a user name or password, ` +
        'which a URL must not carry here (it would be shown and recorded). Give the URL without them, and the ' +
        'credentials with --header, such as --header "Authorization: Basic <base64 of user:password>".',
    );
  }
  if (schemeless) {
    throw new UsageError(
      `The root URL "${rootUrl}" has no scheme: add http:// or https://, as in http://${rootUrl} (or https://).`,
    );
  }
  try {
    return canonicalRoot(rootUrl);
  } catch (error) {
    if (error instanceof InvalidUrlError) {
      throw new UsageError(`${error.message.split(rootUrl).join(redactUserinfo(rootUrl))} ${example}`);
    }
    throw error;
  }
}

function manifestOptions(
  options: SnapshotOptions,
  headers: Record<string, string>,
): Manifest['options'] & { links: LinkMode; collectionIndex: CollectionIndexMode } {
  const links = options.links ?? DEFAULTS.links;
  if (links === 'absolute' && options.baseUrl === undefined) {
    throw new UsageError(
      '--links absolute needs --base-url, the address the mirror will have (for example https://cv.example.org/).',
    );
  }
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl)) {
    throw new UsageError(
      `--base-url "${redactUserinfo(options.baseUrl)}" is not an absolute URL; ` +
        'give one such as https://cv.example.org/mirror/.',
    );
  }
  return {
    links,
    baseUrl: options.baseUrl ?? null,
    collectionIndex: options.collectionIndex ?? DEFAULTS.collectionIndex,
    strict: options.strict ?? false,
    headers: Object.keys(headers)
      .sort()
      .map((name) => `${name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase())}: ***`),
  };
}

/**
 * Readies --out before anything is fetched: its parent (made when missing), the staging directory and its lock, a
 * publish a kill interrupted, and what --out holds. Returns the staging directory opened and what --out was.
 */
async function prepareOutput(
  paths: OutputPaths,
  clock: Clock,
): Promise<{ opened: OpenedStaging; before: OutInspection | Error }> {
  try {
    await mkdir(paths.parent, { recursive: true }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      throw new OutputDirError(
        `The parent of --out, ${paths.parent}, is a file, not a directory; choose another --out.`,
      );
    });
    await assertOutsideToolDirs(paths);
  } catch (error) {
    throw fileSystemError(error, `Preparing --out ${paths.out}`);
  }
  const opened = await openStaging(paths, clock).catch((error: unknown) => {
    throw fileSystemError(error, `Preparing --out ${paths.out}`);
  });
  try {
    await recoverInterruptedPublish(paths);
    await assertLinksWork(paths);
    return { opened, before: await inspectOut(paths) };
  } catch (error) {
    // Refused or failed before any work: the staging directory is handed back as it was found.
    return { opened, before: fileSystemError(error, `Preparing --out ${paths.out}`) as Error };
  }
}

export async function createSnapshot(options: SnapshotOptions): Promise<SnapshotResult> {
  const clock = options.clock ?? createClock();
  const startedMs = clock.monotonicMs();
  const root = rootOf(options.rootUrl);
  const headers = parseHeaders(options.headers ?? []);
  const recorded = manifestOptions(options, headers);
  const concurrency = options.concurrency ?? DEFAULTS.concurrency;
  const mode = { fresh: options.fresh === true, resume: options.resume === true };
  if (mode.fresh && mode.resume) throw new UsageError('--fresh and --resume contradict each other; give one.');

  const paths = outputPaths(options.out);
  const { opened, before } = await prepareOutput(paths, clock);
  /** Work in staging that a failure must leave for --resume: an earlier run's, until --fresh discards it. */
  const run = { keep: opened.leftover, started: false, documents: 0, previous: null as string | null };
  try {
    if (before instanceof Error) throw before;
    const hasSnapshot = before.state.kind === 'link' || existsSync(path.join(paths.out, ...SUMS_PATH.split('/')));
    run.previous = before.state.kind !== 'absent' && hasSnapshot ? paths.out : null;
    try {
      await prepareStaging(paths, opened, mode, {
        root,
        links: recorded.links,
        baseUrl: recorded.baseUrl,
        collectionIndex: recorded.collectionIndex,
      });
    } catch (error) {
      throw fileSystemError(error, `Preparing the staging directory ${paths.staging}`);
    }
    run.keep = mode.resume;
    const context = { options, clock, root, headers, recorded, concurrency, paths, opened, before, run, startedMs };
    return await crawlAndPublish(context);
  } catch (error) {
    throw await stopped(error, paths, opened, run, options);
  }
}

interface RunContext {
  options: SnapshotOptions;
  clock: Clock;
  root: string;
  headers: Record<string, string>;
  recorded: ReturnType<typeof manifestOptions>;
  concurrency: number;
  paths: OutputPaths;
  opened: OpenedStaging;
  before: OutInspection;
  run: { keep: boolean; started: boolean; documents: number };
  startedMs: number;
}

async function crawlAndPublish(context: RunContext): Promise<SnapshotResult> {
  const { options, clock, root, headers, recorded, concurrency, paths, run } = context;
  const layout = new Layout(root);
  const writer = new TreeWriter(paths.stagedTree);
  const rewriter = createLinkRewriter(layout, recorded.links, options.baseUrl);
  const invariants = new InvariantChecker(root);
  const state = new RunState(root, invariants, writer, { resuming: options.resume === true });
  if (options.resume) await replayJournal(paths, state);
  const resumed = state.documents;
  run.documents = resumed;
  run.started = true;
  const journal = Journal.open(paths.journal);
  const record = (entry: JournalEntry): void => {
    state.apply(entry);
    journal.append(entry);
    if (entry.t === 'doc') {
      run.documents = state.documents;
      run.keep = true;
    }
  };

  const fetcher = new Fetcher({
    concurrency,
    retries: options.retries ?? DEFAULTS.retries,
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    maxBytes: options.maxBytes ?? DEFAULTS.maxBytes,
    userAgent: USER_AGENT,
    headers,
    ...(options.rate !== undefined ? { rateLimiter: new RateLimiter(options.rate) } : {}),
    ...(options.backoffBaseMs !== undefined ? { backoffBaseMs: options.backoffBaseMs } : {}),
  });

  const onDocument = ({ url, location, response, json, discovered }: CrawledDocument): void => {
    const check = validateDocument(json, url, root);
    for (const finding of check.findings) record({ t: 'finding', finding });
    const data = (json as { data?: unknown }).data;
    const entry: JournalEntry = {
      t: 'doc',
      url,
      file: null,
      summary: check.summary,
      records: location.kind === 'list' && Array.isArray(data) ? data.length : null,
      discovered,
      ...(location.kind === 'root'
        ? { source: { etag: response.headers.etag ?? null, lastModified: response.headers['last-modified'] ?? null } }
        : {}),
    };
    const placement = layout.place(url);
    if (!placement.ok) {
      record({
        t: 'finding',
        finding: {
          url,
          pointer: '',
          rule: 'layout.refused',
          severity: 'error',
          message: `${url} was not stored: ${placement.reason}.`,
        },
      });
      record(entry);
      return;
    }
    rewriteDocumentLinks(json, location, url, rewriter);
    try {
      // A resumed crawl may rewrite a file that the interrupted run wrote but did not journal.
      const written = writer.write(placement.file, stringifyJson(json), { exclusive: options.resume !== true });
      entry.file = { path: placement.file, ...written };
    } catch (error) {
      if (!(error instanceof FileCollisionError)) throw error;
      record({
        t: 'finding',
        finding: {
          url,
          pointer: '',
          rule: 'layout.collision',
          severity: 'error',
          message: `${url} was not stored: ${error.message}`,
        },
      });
    }
    record(entry);
  };

  const progress = options.progress
    ? new ProgressLine(
        options.progress.stream,
        options.progress.mode,
        () => ({ ...fetcher.stats, done: state.documents, discovered: state.discovered, errors: state.errors }),
        options.progress.intervalMs,
      )
    : undefined;
  try {
    await crawl({
      root,
      fetcher,
      concurrency,
      onDocument,
      onSettled: ({ url, discovered }) => record({ t: 'settled', url, discovered }),
      onFinding: (finding) => record({ t: 'finding', finding }),
      ...(options.resume ? { resume: state.takeResume() } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      maxDocuments: options.maxDocuments ?? DEFAULTS.maxDocuments,
      allowPartial: options.allowPartial === true,
    });
  } catch (error) {
    progress?.stop();
    await journal.close().catch(() => undefined);
    await fetcher.close().catch(() => undefined);
    throw fileSystemError(error, `Writing the snapshot into ${paths.staging}`);
  } finally {
    progress?.stop();
  }
  await fetcher.close();
  let finished: ReturnType<typeof finalizeSnapshot>;
  try {
    await journal.close();
    finished = finalizeSnapshot({ layout, writer, state, invariants, clock, options: recorded });
  } catch (error) {
    throw fileSystemError(error, `Finishing the snapshot in ${paths.staging}`);
  }
  const { manifest, report } = finished;
  run.keep = true;
  if (options.strict && report.errors > 0) {
    throw new StrictValidationError(
      report.errors,
      path.join(paths.stagedTree, ...REPORT_PATH.split('/')),
      `The finished snapshot is kept in ${paths.staging}: to publish it anyway (a faithful mirror, faults included), ` +
        'run the same command without --strict and with --resume (nothing is fetched again); --fresh discards it.',
    );
  }
  // A signal during finalize: stop here, with everything kept, rather than publish after the user asked to stop.
  if (options.signal?.aborted) throw options.signal.reason;
  try {
    await publish(paths, context.before, context.opened.lock);
  } catch (error) {
    throw fileSystemError(error, `Publishing the snapshot at ${paths.out}`);
  }
  await removeStaging(paths, context.opened.lock).catch(() => undefined);
  return {
    out: paths.out,
    root,
    documents: manifest.documents,
    collections: manifest.collections,
    report,
    summary: formatSummary(report),
    resumed,
    missing: manifest.missing,
    requests: fetcher.stats.requests,
    retries: fetcher.stats.retries,
    elapsedMs: clock.monotonicMs() - context.startedMs,
  };
}

/**
 * The error to report when a run stops early, after keeping its work in staging for --resume (or, when there is
 * none, removing the staging directory), and releasing the lock.
 */
async function stopped(
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
  if (!run.started || !run.keep || error instanceof StrictValidationError || error instanceof CrawlLockedError) {
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
