/**
 * `crawl` as a library call: the whole pipeline of DESIGN.md §2, from the root URL to a published snapshot.
 * Each stage lives in its own module; this one wires them together and owns the run's state (staging, counts).
 */
import { rm, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createClock, type Clock } from '../clock.js';
import { crawl, type CrawledDocument } from '../crawl/crawler.js';
import { Fetcher } from '../crawl/fetcher.js';
import { ProgressLine, type ProgressMode } from '../crawl/progress.js';
import { RateLimiter } from '../crawl/rate-limiter.js';
import { OutputDirError, StrictValidationError, UsageError } from '../errors.js';
import { canonicalRoot, InvalidUrlError } from '../url/canonical-url.js';
import type { Finding } from '../validate/finding.js';
import { InvariantChecker } from '../validate/invariants.js';
import { buildReport, formatSummary, type ValidationReport } from '../validate/report.js';
import { validateDocument } from '../validate/validate-document.js';
import { TOOL_NAME, TOOL_VERSION, USER_AGENT } from '../version.js';
import { writeCollectionIndex } from './collection-index.js';
import { errorDocumentFile, headersFile, redirectsFile, serveJson } from './host-files.js';
import { Layout } from './layout.js';
import {
  formatSums,
  MANIFEST_FORMAT_VERSION,
  MANIFEST_PATH,
  REPORT_PATH,
  serializeManifest,
  SUMS_PATH,
  type CollectionCounts,
  type CollectionIndexMode,
  type Manifest,
} from './manifest.js';
import { assertReplaceable, outputPaths, publish, recoverInterruptedPublish } from './publish.js';
import { createLinkRewriter, linkPrefix, rewriteDocumentLinks, type LinkMode } from './rewrite-links.js';
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
  maxDocuments?: number;
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
  requests: number;
  retries: number;
  elapsedMs: number;
}

export const DEFAULTS = {
  concurrency: 8,
  retries: 5,
  timeoutMs: 30_000,
  maxBytes: 64 * 1024 * 1024,
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
    if (error instanceof InvalidUrlError) throw new UsageError(`${error.message} Give the API root URL, such as https://sms-cv.helmholtz.cloud/sms/cv/api/v1/.`);
    throw error;
  }
}

export async function createSnapshot(options: SnapshotOptions): Promise<SnapshotResult> {
  const clock = options.clock ?? createClock();
  const startedMs = clock.monotonicMs();
  const root = rootOf(options.rootUrl);
  const links = options.links ?? DEFAULTS.links;
  if (links === 'absolute' && options.baseUrl === undefined) {
    throw new UsageError('--links absolute needs --base-url, the address the mirror will have (for example https://cv.example.org/).');
  }
  if (options.baseUrl !== undefined) {
    try {
      new URL(options.baseUrl);
    } catch {
      throw new UsageError(`--base-url "${options.baseUrl}" is not an absolute URL; give one such as https://cv.example.org/mirror/.`);
    }
  }
  const headers = parseHeaders(options.headers ?? []);
  const collectionIndexMode = options.collectionIndex ?? DEFAULTS.collectionIndex;
  const concurrency = options.concurrency ?? DEFAULTS.concurrency;

  const paths = outputPaths(options.out);
  await recoverInterruptedPublish(paths);
  await assertReplaceable(paths);
  if (options.fresh) await rm(paths.staging, { recursive: true, force: true });
  try {
    await mkdir(paths.staging);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new OutputDirError(
      `A staging directory from an earlier run is at ${paths.staging}. Run again with --fresh to discard it and start over.`,
    );
  }

  const layout = new Layout(root);
  const writer = new TreeWriter(paths.stagedTree);
  const rewriter = createLinkRewriter(layout, links, options.baseUrl);
  const invariants = new InvariantChecker(root);
  const findings: Finding[] = [];
  let errorCount = 0;
  const addFinding = (finding: Finding): void => {
    findings.push(finding);
    if (finding.severity === 'error') errorCount += 1;
  };
  const collections = new Map<string, CollectionCounts>();
  const pageFiles = new Map<string, Map<number, string>>();
  let rootHeaders: Record<string, string> = {};
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

  const onDocument = async ({ url, location, response, json }: CrawledDocument): Promise<void> => {
    const check = validateDocument(json, url, root);
    for (const finding of check.findings) addFinding(finding);
    invariants.add(url, check.summary);
    if (location.kind === 'root') rootHeaders = response.headers;
    const placement = layout.place(url);
    if (!placement.ok) {
      addFinding({ url, pointer: '', rule: 'layout.refused', severity: 'error', message: `${url} was not stored: ${placement.reason}.` });
      return;
    }
    if (location.kind !== 'root' && location.kind !== 'other') {
      const counts = collections.get(location.collection) ?? { records: 0, pages: 0, documents: 0 };
      counts.documents += 1;
      if (location.kind === 'list') {
        counts.pages += 1;
        const data = (json as { data?: unknown }).data;
        if (Array.isArray(data)) counts.records += data.length;
        const pages = pageFiles.get(location.collection) ?? new Map<number, string>();
        pages.set(location.page, placement.file);
        pageFiles.set(location.collection, pages);
      }
      collections.set(location.collection, counts);
    }
    rewriteDocumentLinks(json, location, url, rewriter);
    try {
      await writer.write(placement.file, JSON.stringify(json));
    } catch (error) {
      if (!(error instanceof FileCollisionError)) throw error;
      addFinding({ url, pointer: '', rule: 'layout.collision', severity: 'error', message: `${url} was not stored: ${error.message}` });
    }
  };

  const progress = options.progress
    ? new ProgressLine(
        options.progress.stream,
        options.progress.mode,
        () => ({ ...state, ...fetcher.stats, errors: errorCount }),
        options.progress.intervalMs,
      )
    : undefined;
  const state = { done: 0, discovered: 0 };
  let documents: number;
  try {
    const result = await crawl({
      root,
      fetcher,
      concurrency,
      onDocument,
      onFinding: addFinding,
      onProgress: (p) => Object.assign(state, p),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.maxDocuments !== undefined ? { maxDocuments: options.maxDocuments } : {}),
    });
    documents = result.documents;
  } catch (error) {
    progress?.stop();
    await fetcher.close().catch(() => undefined);
    await rm(paths.staging, { recursive: true, force: true });
    throw error;
  }
  progress?.stop();
  await fetcher.close();

  // Finalize: the complete collections, host files, report, manifest and checksums.
  const prefix = linkPrefix(links, options.baseUrl);
  for (const [collection, pages] of [...pageFiles].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const index = layout.collectionIndex(collection);
    await writeCollectionIndex(writer, {
      pageFiles: [...pages].sort(([a], [b]) => a - b).map(([, file]) => file),
      file: index.file,
      selfLink: links === 'original' ? layout.collectionUrl(collection) : prefix + index.servedPath.slice(1),
      mode: collectionIndexMode,
    });
  }
  await writer.write('_headers', headersFile(layout));
  await writer.write('_redirects', redirectsFile(layout));
  await writer.write('serve.json', serveJson(layout));
  await writer.write('404.html', errorDocumentFile());

  for (const finding of invariants.finish()) addFinding(finding);
  const report = buildReport(findings);
  await writer.write(REPORT_PATH, `${JSON.stringify(report, null, 2)}\n`);
  const sortedCollections = Object.fromEntries([...collections].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const manifest: Manifest = {
    format: 'cv-snapshot',
    formatVersion: MANIFEST_FORMAT_VERSION,
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    source: { root, etag: rootHeaders.etag ?? null, lastModified: rootHeaders['last-modified'] ?? null },
    createdAt: clock.recordedTime.toISOString(),
    options: {
      links,
      baseUrl: options.baseUrl ?? null,
      collectionIndex: collectionIndexMode,
      strict: options.strict ?? false,
      headers: Object.keys(headers).sort(),
    },
    partial: false,
    documents,
    collections: sortedCollections,
    validation: { errors: report.errors, warnings: report.warnings },
  };
  await writer.write(MANIFEST_PATH, serializeManifest(manifest));
  await writeFile(path.join(paths.stagedTree, ...SUMS_PATH.split('/')), formatSums(writer.listing()));

  if (options.strict && report.errors > 0) {
    throw new StrictValidationError(report.errors, path.join(paths.stagedTree, ...REPORT_PATH.split('/')));
  }
  await publish(paths);
  return {
    out: paths.out,
    root,
    documents,
    collections: sortedCollections,
    report,
    summary: formatSummary(report),
    requests: fetcher.stats.requests,
    retries: fetcher.stats.retries,
    elapsedMs: clock.monotonicMs() - startedMs,
  };
}
