/**
 * `crawl` as a library call: the whole pipeline of DESIGN.md §2, from the root URL to a published snapshot.
 * Each stage lives in its own module; this one wires them together: staging, journal, crawl, finalize, publish.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createClock, type Clock } from '../clock.js';
import { crawl, type CrawledDocument } from '../crawl/crawler.js';
import { Fetcher } from '../crawl/fetcher.js';
import { ProgressLine, type ProgressMode } from '../crawl/progress.js';
import { RateLimiter } from '../crawl/rate-limiter.js';
import {
  CrawlStoppedError,
  CvSnapshotError,
  InterruptedError,
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
import { Journal, type JournalEntry } from './journal.js';
import { Layout } from './layout.js';
import { REPORT_PATH, type CollectionCounts, type CollectionIndexMode, type Manifest } from './manifest.js';
import {
  assertReplaceable,
  outputPaths,
  prepareStaging,
  publish,
  recoverInterruptedPublish,
  replayJournal,
  type OutputPaths,
} from './staging.js';
import { createLinkRewriter, rewriteDocumentLinks, type LinkMode } from './rewrite-links.js';
import { RunState } from './run-state.js';
import { FileCollisionError, TreeWriter } from './writer.js';

export interface SnapshotOptions {
  rootUrl: string;
  out: string;
  concurrency?: number;
  retries?: number;
  timeoutMs?: number;
  maxBytes?: number;
  /** Requests per second, retries included. */
  rate?: number;
  links?: LinkMode;
  baseUrl?: string;
  collectionIndex?: CollectionIndexMode;
  /** Extra request headers as `Name: value` (credentials); values never reach the snapshot or logs. */
  headers?: string[];
  strict?: boolean;
  /** Discard a staging directory left by an earlier run. */
  fresh?: boolean;
  /** Continue the crawl that a staging directory holds. */
  resume?: boolean;
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

export const DEFAULTS = {
  concurrency: 8,
  retries: 5,
  timeoutMs: 30_000,
  maxBytes: 64 * 1024 * 1024,
  maxDocuments: 2_000_000,
  links: 'relative' as LinkMode,
  collectionIndex: 'complete' as CollectionIndexMode,
};

/** Parses `Name: value` headers; throws UsageError naming the bad one (without its value). */
export function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`--header takes "Name: value", and "${name || line.slice(0, 20)}" is not a header name.`);
    }
    headers[name.toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function rootOf(rootUrl: string): string {
  try {
    return canonicalRoot(rootUrl);
  } catch (error) {
    if (error instanceof InvalidUrlError) {
      throw new UsageError(`${error.message} Give the API root URL, such as https://sms-cv.helmholtz.cloud/sms/cv/api/v1/.`);
    }
    throw error;
  }
}

function manifestOptions(options: SnapshotOptions, headers: Record<string, string>): Manifest['options'] & { links: LinkMode; collectionIndex: CollectionIndexMode } {
  const links = options.links ?? DEFAULTS.links;
  if (links === 'absolute' && options.baseUrl === undefined) {
    throw new UsageError('--links absolute needs --base-url, the address the mirror will have (for example https://cv.example.org/).');
  }
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl)) {
    throw new UsageError(`--base-url "${options.baseUrl}" is not an absolute URL; give one such as https://cv.example.org/mirror/.`);
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

export async function createSnapshot(options: SnapshotOptions): Promise<SnapshotResult> {
  const clock = options.clock ?? createClock();
  const startedMs = clock.monotonicMs();
  const root = rootOf(options.rootUrl);
  const headers = parseHeaders(options.headers ?? []);
  const recorded = manifestOptions(options, headers);
  const concurrency = options.concurrency ?? DEFAULTS.concurrency;

  const paths = outputPaths(options.out);
  await recoverInterruptedPublish(paths);
  await assertReplaceable(paths);
  await prepareStaging(
    paths,
    { fresh: options.fresh === true, resume: options.resume === true },
    { root, links: recorded.links, baseUrl: recorded.baseUrl, collectionIndex: recorded.collectionIndex },
  );

  const layout = new Layout(root);
  const writer = new TreeWriter(paths.stagedTree);
  const rewriter = createLinkRewriter(layout, recorded.links, options.baseUrl);
  const invariants = new InvariantChecker(root);
  const state = new RunState(root, invariants, writer, { resuming: options.resume === true });
  if (options.resume) await replayJournal(paths, state);
  const resumed = state.documents;
  const journal = Journal.open(paths.journal);
  const record = (entry: JournalEntry): void => {
    state.apply(entry);
    journal.append(entry);
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

  const onDocument = async ({ url, location, response, json, discovered }: CrawledDocument): Promise<void> => {
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
      record({ t: 'finding', finding: { url, pointer: '', rule: 'layout.refused', severity: 'error', message: `${url} was not stored: ${placement.reason}.` } });
      record(entry);
      return;
    }
    rewriteDocumentLinks(json, location, url, rewriter);
    try {
      const written = writer.write(placement.file, stringifyJson(json));
      entry.file = { path: placement.file, ...written };
    } catch (error) {
      if (!(error instanceof FileCollisionError)) throw error;
      record({ t: 'finding', finding: { url, pointer: '', rule: 'layout.collision', severity: 'error', message: `${url} was not stored: ${error.message}` } });
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
    await journal.close();
    await fetcher.close().catch(() => undefined);
    throw await stopped(error, paths, state.documents, options);
  } finally {
    progress?.stop();
  }
  await journal.close();
  await fetcher.close();

  const { manifest, report } = await finalizeSnapshot({ layout, writer, state, invariants, clock, options: recorded });
  if (options.strict && report.errors > 0) {
    throw new StrictValidationError(report.errors, path.join(paths.stagedTree, ...REPORT_PATH.split('/')));
  }
  await publish(paths);
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
    elapsedMs: clock.monotonicMs() - startedMs,
  };
}

/** The error to report when a crawl stops early, after keeping (or, when nothing was done, removing) its work. */
async function stopped(error: unknown, paths: OutputPaths, documents: number, options: SnapshotOptions): Promise<unknown> {
  const keep = documents > 0 || options.resume === true;
  if (!keep) await rm(paths.staging, { recursive: true, force: true });
  const howToContinue = keep
    ? `The ${documents} documents fetched so far are kept in ${paths.staging}: run the same command with --resume to continue, or with --fresh to start over.`
    : '';
  if (options.signal?.aborted) return new InterruptedError(String(options.signal.reason ?? 'SIGINT'), howToContinue);
  if (keep && error instanceof CvSnapshotError) return new CrawlStoppedError(error, howToContinue);
  return error;
}

