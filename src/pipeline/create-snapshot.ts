/**
 * `crawl` as a library call: the whole pipeline from the root URL to a published snapshot (docs/architecture.md).
 * Each stage lives in its own module; this one wires them together: staging, journal, crawl, finalize, publish.
 */
import path from 'node:path';
import { createClock, type Clock } from '../clock.js';
import { crawl, type CrawledDocument, type SettledUrl } from '../crawl/crawler.js';
import { deriveManifest } from '../derive/derive-manifest.js';
import type { DeriveRun } from '../derive/derive-run.js';
import { derivedCrawl } from '../derive/derived-crawl.js';
import { sampleSettings } from '../derive/sample.js';
import type { Finding } from '../validate/finding.js';
import { Fetcher } from '../crawl/fetcher.js';
import { ProgressLine } from '../crawl/progress.js';
import { RateLimiter } from '../crawl/rate-limiter.js';
import { StrictValidationError, UsageError } from '../errors.js';
import { Layout } from '../format/layout.js';
import { REPORT_PATH } from '../format/manifest.js';
import { createLinkRewriter } from '../format/rewrite-links.js';
import { fileSystemError } from '../store/fs-errors.js';
import { Journal, type JournalEntry } from '../store/journal.js';
import { outputPaths, type OutInspection, type OutputPaths } from '../store/output-dir.js';
import { publish } from '../store/publish.js';
import { prepareStaging, removeStaging, replayJournal, type OpenedStaging } from '../store/staging.js';
import { TreeWriter } from '../store/writer.js';
import { InvariantChecker } from '../validate/invariants.js';
import { formatSummary } from '../validate/report.js';
import type { ApiLocation } from '../url/api-location.js';
import { UrlSet } from '../url/url-set.js';
import { UrlSpace } from '../url/url-space.js';
import { USER_AGENT } from '../version.js';
import { manifestOptions, rootOf } from './check-options.js';
import { DocumentPool } from './document-pool.js';
import { previousSnapshot } from './changes-since.js';
import { finalizeSnapshot } from './finalize.js';
import { prepareOutput } from './prepare-output.js';
import { settleCollections } from './settle-collections.js';
import { checkSourceUnchanged } from './source-state.js';
import { parseHeaders } from './request-headers.js';
import { RunState } from './run-state.js';
import { DEFAULTS, type SnapshotOptions, type SnapshotResult } from './snapshot-options.js';
import { stopped } from './stopped.js';
import { storeDocument } from './store-document.js';

export async function createSnapshot(options: SnapshotOptions): Promise<SnapshotResult> {
  const clock = options.clock ?? createClock();
  const startedMs = clock.monotonicMs();
  const root = rootOf(options.rootUrl);
  const headers = parseHeaders(options.headers ?? []);
  const recorded = manifestOptions(options, headers);
  const concurrency = options.concurrency ?? DEFAULTS.concurrency;
  const mode = { fresh: options.fresh === true, resume: options.resume === true };
  if (mode.fresh && mode.resume) throw new UsageError('--fresh and --resume contradict each other; give one.');
  const sample = sampleSettings(options);

  const paths = outputPaths(options.out);
  const { opened, before } = await prepareOutput(paths, clock);
  /** Work in staging that a failure must leave for --resume: an earlier run's, until --fresh discards it. */
  const run = { keep: opened.leftover, started: false, documents: 0, previous: null as string | null };
  try {
    if (before instanceof Error) throw before;
    run.previous = previousSnapshot(paths, before);
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
    const context = {
      options,
      clock,
      root,
      headers,
      recorded,
      concurrency,
      paths,
      opened,
      before,
      run,
      startedMs,
      sample,
    };
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
  /** `previous`: the snapshot --out holds (previousSnapshot), for the catalogue's Changes page and for messages. */
  run: { keep: boolean; started: boolean; documents: number; previous: string | null };
  startedMs: number;
  /** With --derive: the sample asked for. */
  sample: ReturnType<typeof sampleSettings>;
}

async function crawlAndPublish(context: RunContext): Promise<SnapshotResult> {
  const { options, clock, root, headers, recorded, concurrency, paths, run } = context;
  // The run's URLs, parsed once and shared by the crawl, validation, the layout and the link rewriter.
  const urls = new UrlSpace(root);
  const layout = new Layout(root, urls);
  const writer = new TreeWriter(paths.stagedTree, { listing: paths.fileList });
  try {
    const rewriter = createLinkRewriter(layout, recorded.links, options.baseUrl);
    const invariants = new InvariantChecker(root, urls);
    const state = new RunState(root, invariants, writer, { resuming: options.resume === true, urls });
    if (options.resume) await replayJournal(paths, state);
    const resumed = state.documents;
    run.documents = resumed;
    run.started = true;
    const journal = Journal.open(paths.journal);
    const record = (entry: JournalEntry, location?: ApiLocation): void => {
      state.apply(entry, location);
      journal.append(entry);
      if (entry.t === 'doc') {
        run.documents = state.documents;
        run.keep = true;
      }
    };

    const fetchOptions = {
      concurrency,
      retries: options.retries ?? DEFAULTS.retries,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      maxBytes: options.maxBytes ?? DEFAULTS.maxBytes,
      userAgent: USER_AGENT,
      headers,
    };
    const fetcher = new Fetcher({
      ...fetchOptions,
      ...(options.rate !== undefined ? { rateLimiter: new RateLimiter(options.rate) } : {}),
      ...(options.backoffBaseMs !== undefined ? { backoffBaseMs: options.backoffBaseMs } : {}),
    });

    // Derive mode reads the lists' documents on this thread (it learns from them), so it does without workers.
    const workers = context.sample === null ? (options.workers ?? 0) : 0;
    const pool =
      workers > 0
        ? new DocumentPool(
            workers,
            concurrency,
            {
              root,
              links: recorded.links,
              baseUrl: options.baseUrl,
              tree: paths.stagedTree,
              resuming: options.resume === true,
              fetch: { ...fetchOptions, rate: options.rate, backoffBaseMs: options.backoffBaseMs },
            },
            fetcher.stats,
          )
        : undefined;

    const onDocument = (document: CrawledDocument): void =>
      storeDocument({ root, layout, rewriter, writer, resuming: options.resume === true, record }, document);

    let derived: DeriveRun | undefined;
    const progress = options.progress
      ? new ProgressLine(
          options.progress.stream,
          options.progress.mode,
          () => ({
            ...fetcher.stats,
            done: state.documents,
            discovered: state.discovered,
            errors: state.errors,
            ...(derived ? { derived: derived.derived } : {}),
          }),
          options.progress.intervalMs,
        )
      : undefined;
    const crawlOptions = {
      root,
      urls,
      fetcher,
      concurrency,
      onDocument,
      onSettled: ({ url, discovered }: SettledUrl) => record({ t: 'settled', url, discovered }),
      onFinding: (finding: Finding) => record({ t: 'finding', finding }),
      ...(options.signal ? { signal: options.signal } : {}),
      maxDocuments: options.maxDocuments ?? DEFAULTS.maxDocuments,
      allowPartial: options.allowPartial === true,
    };
    const elsewhere = pool
      ? {
          fetchElsewhere: (url: string, signal: AbortSignal, how: { readHere: boolean; first: boolean }) =>
            pool.fetch(url, signal, how),
          queuedElsewhere: pool.queued,
        }
      : {};
    try {
      const resume = options.resume ? state.takeResume() : undefined;
      if (resume) {
        await checkSourceUnchanged({
          root,
          out: options.out,
          fetcher,
          source: state.source,
          firstPages: invariants.firstPageCounts(),
          signal: options.signal,
        });
      }
      if (context.sample !== null) {
        await derivedCrawl({
          crawl: crawlOptions,
          staging: paths.staging,
          ...(resume ? { resume } : {}),
          sample: context.sample.sample,
          ...(context.sample.seed !== undefined ? { seed: context.sample.seed } : {}),
          onStart: (started) => (derived = started),
        });
      } else {
        const seen = resume?.seen ?? new UrlSet(root);
        await crawl({ ...crawlOptions, ...elsewhere, ...(resume ? { resume } : { seen }) });
        // Pages fetched again are read and stored on this thread, over the files the crawl wrote.
        const again = (document: CrawledDocument): void =>
          storeDocument({ root, layout, rewriter, writer, resuming: true, record }, document);
        await settleCollections({
          invariants,
          allowPartial: options.allowPartial === true,
          addFinding: (finding) => state.addFinding(finding),
          refetch: (pending) => crawl({ ...crawlOptions, onDocument: again, resume: { seen, pending } }),
        });
      }
    } catch (error) {
      progress?.stop();
      await journal.close().catch(() => undefined);
      await fetcher.close().catch(() => undefined);
      throw fileSystemError(error, `Writing the snapshot into ${paths.staging}`);
    } finally {
      progress?.stop();
      await pool?.close();
    }
    await fetcher.close();
    let finished: Awaited<ReturnType<typeof finalizeSnapshot>>;
    try {
      await journal.close();
      const derive = derived && {
        manifest: deriveManifest(derived, fetcher.stats.requests - fetcher.stats.retries),
        mismatches: [...derived.mismatches],
      };
      finished = await finalizeSnapshot({
        layout,
        writer,
        state,
        invariants,
        clock,
        options: recorded,
        previous: run.previous,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(derive ? { derive } : {}),
      });
    } catch (error) {
      throw fileSystemError(error, `Finishing the snapshot in ${paths.staging}`);
    }
    const { manifest, report } = finished;
    // The list of files is in SHA256SUMS now.
    writer.close();
    run.keep = true;
    if (options.strict && report.errors > 0) {
      throw new StrictValidationError(
        report.errors,
        path.join(paths.stagedTree, ...REPORT_PATH.split('/')),
        `The finished snapshot is kept in ${paths.staging}: to publish it anyway (a faithful mirror, faults ` +
          'included), run the same command without --strict and with --resume (nothing is fetched again but what ' +
          "checks the source's state); --fresh discards it.",
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
      ...(manifest.derive ? { derive: manifest.derive } : {}),
    };
  } finally {
    writer.close();
  }
}
