/**
 * `crawl` as a library call: the whole pipeline from the root URL to a published snapshot (docs/architecture.md).
 * Each stage lives in its own module; this one wires them together: staging, journal, crawl, finalize, publish.
 */
import path from 'node:path';
import { createClock, type Clock } from '../util/clock.js';
import { crawl, type CrawledDocument, type SettledUrl } from '../crawl/crawler.js';
import { deriveManifest } from '../derive/derive-manifest.js';
import type { DeriveRun } from '../derive/derive-run.js';
import { derivedCrawl } from '../derive/derived-crawl.js';
import { sampleSettings } from '../derive/sample.js';
import type { Finding } from '../validate/finding.js';
import { Fetcher } from '../crawl/fetcher.js';
import { ProgressLine, StageLine } from '../crawl/progress.js';
import { RateLimiter } from '../crawl/rate-limiter.js';
import { StrictValidationError, UnboundedListError, UsageError } from '../util/errors.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { Layout } from '../format/layout.js';
import { META_DIR } from '../store/sums.js';
import { captureSums, openCapture, type CaptureRun } from '../capture/capture-run.js';
import { REPORT_PATH } from '../format/manifest.js';
import { createLinkRewriter } from '../format/rewrite-links.js';
import { fileSystemError } from '../store/fs-errors.js';
import { Journal, type JournalEntry } from '../store/journal.js';
import { outputPaths, RUN_FILE, type OutInspection, type OutputPaths } from '../store/output-dir.js';
import { publish } from '../store/publish.js';
import { prepareStaging, removeStaging, type OpenedStaging } from '../store/staging.js';
import { replayJournal } from './replay-journal.js';
import { TreeWriter } from '../store/writer.js';
import { InvariantChecker } from '../validate/invariants.js';
import { formatSummary, type ValidationReport } from '../validate/report.js';
import type { ApiLocation } from '../url/api-location.js';
import { UrlSet } from '../url/url-set.js';
import { UrlSpace } from '../url/url-space.js';
import { TOOL_NAME, TOOL_VERSION, USER_AGENT } from '../version.js';
import { manifestOptions, recordedNames, rootOf } from './check-options.js';
import { checkNames } from '../format/human-names.js';
import { DocumentPool } from './document-pool.js';
import { PhaseTimes, processCpuMs } from './phases.js';
import { previousSnapshot } from './changes-since.js';
import { finalizeSnapshot } from './finalize.js';
import { prepareOutput } from './prepare-output.js';
import { settleCollections } from './settle-collections.js';
import type { ListSettler } from '../derive/derived-crawl.js';
import { checkSourceUnchanged } from './source-state.js';
import { parseHeaders } from './request-headers.js';
import { RunState } from './run-state.js';
import { DEFAULTS, type SnapshotOptions, type SnapshotResult } from './snapshot-options.js';
import { stopped } from './stopped.js';
import { storeDocument, type DocumentStore } from './store-document.js';

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
    let started: Awaited<ReturnType<typeof prepareStaging>>;
    try {
      started = await prepareStaging(paths, opened, mode, {
        root,
        links: recorded.links,
        baseUrl: recorded.baseUrl,
        collectionIndex: recorded.collectionIndex,
        ...(options.warc === true ? { warc: true } : {}),
        ...(recorded.names ? { names: recorded.names } : {}),
      });
    } catch (error) {
      throw fileSystemError(error, `Preparing the staging directory ${paths.staging}`);
    }
    // A resumed crawl keeps the names it was started with, unless given others.
    if (options.names === undefined && started.startedWithNames !== undefined) {
      Object.assign(recorded, recordedNames(checkNames(started.startedWithNames, `${paths.staging}/${RUN_FILE}`)));
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

/** What one run writes with and checks against, opened before anything is fetched. */
interface OpenedRun {
  urls: UrlSpace;
  layout: Layout;
  writer: TreeWriter;
  invariants: InvariantChecker;
  state: RunState;
  journal: Journal;
  /** What each fetched document is stored with (store-document.ts). */
  store: DocumentStore;
  /** Documents an interrupted run had stored, with --resume. */
  resumed: number;
}

/** The fetcher's settings; the worker threads' fetchers take the same. */
type FetchSettings = ReturnType<typeof fetchSettings>;

/** The crawl's options that a full and a derived crawl share. */
type SharedCrawlOptions = ReturnType<typeof crawlerOptions>;

async function crawlAndPublish(context: RunContext): Promise<SnapshotResult> {
  const { root, paths } = context;
  // The run's URLs, parsed once and shared by the crawl, validation, the layout and the link rewriter.
  const urls = new UrlSpace(root);
  const layout = new Layout(root, urls);
  const writer = new TreeWriter(paths.stagedTree, { listing: paths.fileList });
  let capture: CaptureRun | undefined;
  try {
    const phases = new PhaseTimes();
    const stopCrawl = phases.start('crawl');
    const opened = await openRun(context, urls, layout, writer);
    const settings = fetchSettings(context);
    capture = context.options.warc === true ? startCapture(context, settings) : undefined;
    const fetcher = createFetcher(context.options, settings, capture);
    const derived = await crawlSource(context, opened, fetcher, settings, capture);
    await fetcher.close();
    if (capture !== undefined) await listCapture(capture, writer);
    stopCrawl();
    const stopFinalize = phases.start('finalize');
    const { manifest, report, unusedNames, changes } = await finishSnapshot(context, opened, fetcher, derived, phases);
    // The list of files is in SHA256SUMS now.
    writer.close();
    stopFinalize();
    context.run.keep = true;
    const stopPublish = phases.start('publish');
    const kept = await publishSnapshot(context, report);
    stopPublish();
    return {
      out: paths.out,
      root,
      documents: manifest.documents,
      collections: manifest.collections,
      report,
      summary: formatSummary(report),
      resumed: opened.resumed,
      missing: manifest.missing,
      shifted: manifest.shifted ?? [],
      requests: fetcher.stats.requests,
      retries: fetcher.stats.retries,
      elapsedMs: context.clock.monotonicMs() - context.startedMs,
      cpu: { totalMs: processCpuMs(), phases: phases.toJSON() },
      unusedNames,
      kept,
      ...(manifest.derive ? { derive: manifest.derive } : {}),
      changes,
    };
  } finally {
    writer.close();
    await capture?.close();
  }
}

/** The capture's folder in the staged tree: the snapshot's metadata folder. */
function captureDir(paths: OutputPaths): string {
  return path.join(paths.stagedTree, META_DIR);
}

/**
 * Opens this run's capture file (`crawl --warc`, docs/capture.md). Its warcinfo record holds the crawl's options as
 * the manifest records them (a --header by its name only) and how it fetched.
 */
function startCapture(context: RunContext, settings: FetchSettings): CaptureRun {
  const { options, recorded, root, clock } = context;
  const { headers: _secrets, userAgent: _agent, ...fetching } = settings;
  const crawlOptions = { ...recorded, ...fetching, rate: options.rate ?? null, resume: options.resume === true };
  return openCapture(captureDir(context.paths), {
    secret: new Set(Object.keys(context.headers)),
    now: () => clock.now(),
    info: [
      ['software', `${TOOL_NAME}/${TOOL_VERSION}`],
      ['format', 'WARC File Format 1.1'],
      ['conformsTo', 'https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/'],
      ['root', root],
      ['options', JSON.stringify(crawlOptions)],
    ],
  });
}

/** Closes the capture and lists every capture file of the folder (an interrupted run's too) for SHA256SUMS. */
async function listCapture(capture: CaptureRun, writer: TreeWriter): Promise<void> {
  await capture.close();
  for (const [name, sha256] of captureSums(path.join(writer.dir, META_DIR))) {
    writer.record(`${META_DIR}/${name}`, sha256);
  }
}

/** Opens the run's state (replaying the journal with --resume) and the journal every entry is appended to. */
async function openRun(context: RunContext, urls: UrlSpace, layout: Layout, writer: TreeWriter): Promise<OpenedRun> {
  const { options, root, recorded, paths, run } = context;
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
  const store = { root, layout, rewriter, writer, resuming: options.resume === true, record };
  return { urls, layout, writer, invariants, state, journal, store, resumed };
}

function fetchSettings({ options, concurrency, headers }: RunContext) {
  return {
    concurrency,
    retries: options.retries ?? DEFAULTS.retries,
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    maxBytes: options.maxBytes ?? DEFAULTS.maxBytes,
    userAgent: USER_AGENT,
    headers,
  };
}

function createFetcher(options: SnapshotOptions, settings: FetchSettings, capture?: CaptureRun): Fetcher {
  return new Fetcher({
    ...settings,
    ...(capture ? { recorder: capture.recorder } : {}),
    ...(options.rate !== undefined ? { rateLimiter: new RateLimiter(options.rate) } : {}),
    ...(options.backoffBaseMs !== undefined ? { backoffBaseMs: options.backoffBaseMs } : {}),
  });
}

/**
 * The worker threads that fetch and store documents, with --workers (none in derive mode). With --warc, each records
 * the exchanges it makes into this run's capture file.
 */
function createPool(
  context: RunContext,
  settings: FetchSettings,
  fetcher: Fetcher,
  capture: CaptureRun | undefined,
): DocumentPool | undefined {
  const { options, root, recorded, concurrency, paths } = context;
  // Derive mode reads the lists' documents on this thread (it learns from them), so it does without workers.
  const workers = context.sample === null ? (options.workers ?? 0) : 0;
  if (workers <= 0) return undefined;
  return new DocumentPool(
    workers,
    concurrency,
    {
      root,
      links: recorded.links,
      baseUrl: options.baseUrl,
      tree: paths.stagedTree,
      resuming: options.resume === true,
      fetch: { ...settings, rate: options.rate, backoffBaseMs: options.backoffBaseMs },
      ...(capture ? { capture: capture.share() } : {}),
    },
    fetcher.stats,
  );
}

/** The progress line, if asked for; `derive.run` is read when it is drawn, once a derived crawl has begun. */
function startProgress(
  options: SnapshotOptions,
  fetcher: Fetcher,
  state: RunState,
  derive: { run?: DeriveRun },
): ProgressLine | undefined {
  if (!options.progress) return undefined;
  return new ProgressLine(
    options.progress.stream,
    options.progress.mode,
    () => ({
      ...fetcher.stats,
      done: state.documents,
      discovered: state.discovered,
      errors: state.errors,
      ...(derive.run ? { derived: derive.run.derived } : {}),
    }),
    options.progress.intervalMs,
  );
}

function crawlerOptions({ options, root, concurrency }: RunContext, opened: OpenedRun, fetcher: Fetcher) {
  const { store } = opened;
  return {
    root,
    urls: opened.urls,
    fetcher,
    concurrency,
    onDocument: (document: CrawledDocument): void => storeDocument(store, document),
    onSettled: ({ url, discovered }: SettledUrl) => store.record({ t: 'settled', url, discovered }),
    onFinding: (finding: Finding) => store.record({ t: 'finding', finding }),
    ...(options.signal ? { signal: options.signal } : {}),
    maxDocuments: options.maxDocuments ?? DEFAULTS.maxDocuments,
    firstPages: {
      pages: (list: string) => opened.invariants.firstPageDeclares(list),
      count: (collection: string) => opened.invariants.firstPageCount(collection),
    },
    allowPartial: options.allowPartial === true,
  };
}

/**
 * Crawls the source into staging, in full or derived (--derive), after checking with --resume that the source is
 * the one the interrupted run read. Returns the derived crawl's run, if any.
 */
async function crawlSource(
  context: RunContext,
  opened: OpenedRun,
  fetcher: Fetcher,
  settings: FetchSettings,
  capture: CaptureRun | undefined,
): Promise<DeriveRun | undefined> {
  const { options, root, paths } = context;
  // Closed before the capture is: the workers append to its file until they stop.
  const pool = createPool(context, settings, fetcher, capture);
  const derive: { run?: DeriveRun } = {};
  const progress = startProgress(options, fetcher, opened.state, derive);
  const crawlOptions = crawlerOptions(context, opened, fetcher);
  try {
    const resume = options.resume ? opened.state.takeResume() : undefined;
    if (resume) {
      await checkSourceUnchanged({
        root,
        out: options.out,
        fetcher,
        source: opened.state.source,
        firstPages: opened.invariants.firstPageCounts(),
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
        onStart: (started) => (derive.run = started),
        lists: listSettler(options, opened),
      });
    } else {
      await fullCrawl(context, opened, crawlOptions, pool, resume);
    }
  } catch (error) {
    progress?.stop();
    await opened.journal.close().catch(() => undefined);
    await fetcher.close().catch(() => undefined);
    throw fileSystemError(error, `Writing the snapshot into ${paths.staging}`);
  } finally {
    progress?.stop();
    await pool?.close();
  }
  return derive.run;
}

/** Crawls every URL (in the worker threads too, with a pool), then fetches again the lists that shifted meanwhile. */
async function fullCrawl(
  { options, root }: RunContext,
  opened: OpenedRun,
  crawlOptions: SharedCrawlOptions,
  pool: DocumentPool | undefined,
  resume: { seen: UrlSet; pending: string[] } | undefined,
): Promise<void> {
  const elsewhere = pool
    ? {
        fetchElsewhere: (url: string, signal: AbortSignal, how: { readHere: boolean; first: boolean }) =>
          pool.fetch(url, signal, how),
        queuedElsewhere: pool.queued,
      }
    : {};
  const seen = resume?.seen ?? new UrlSet(root);
  await crawl({ ...crawlOptions, ...elsewhere, ...(resume ? { resume } : { seen }) });
  const lists = listSettler(options, opened);
  await lists.settle((pending) => crawl({ ...crawlOptions, onDocument: lists.again, resume: { seen, pending } }));
}

/**
 * Fetching again the lists whose pages disagree (settle-collections.ts), for the full and the derived crawl alike:
 * `again` stores a page fetched again on this thread, over the file the crawl wrote; `settle` runs the rounds with
 * the crawl's `refetch` and records the collections that never agreed (--allow-partial).
 */
function listSettler(options: SnapshotOptions, opened: OpenedRun): ListSettler {
  const storeAgain = { ...opened.store, resuming: true };
  return {
    again: (document: CrawledDocument): void => storeDocument(storeAgain, document),
    settle: async (refetch) => {
      opened.state.shifted = await settleCollections({
        invariants: opened.invariants,
        allowPartial: options.allowPartial === true,
        addFinding: (finding) => opened.state.addFinding(finding),
        refetch,
      });
      const held = opened.state.heldBack();
      if (held.length > 0 && options.allowPartial !== true) throw new UnboundedListError(unboundedMessage(held));
    },
  };
}

/** What a crawl that held URLs back past their list's first page says, without --allow-partial. */
function unboundedMessage(held: Finding[]): string {
  const [first] = held.sort((a, b) => byCodeUnits(a.url, b.url));
  const others = held.length === 1 ? '' : ` (and ${held.length - 1} more like it)`;
  return (
    `${first!.message}${others} Nothing was published: the snapshot would lack what the source's later pages ` +
    'announced. Crawl again when the source is not changing, or give --allow-partial to publish what the first ' +
    'pages announced, with the report and the manifest naming what was left out.'
  );
}

/** Closes the journal and writes what comes after the documents: report, manifest, catalogue, sums. */
async function finishSnapshot(
  { clock, recorded, paths, run, options }: RunContext,
  opened: OpenedRun,
  fetcher: Fetcher,
  derived: DeriveRun | undefined,
  phases: PhaseTimes,
): Promise<Awaited<ReturnType<typeof finalizeSnapshot>>> {
  const stages = options.progress && new StageLine(options.progress.stream, options.progress.mode);
  try {
    await opened.journal.close();
    const derive = derived && {
      manifest: deriveManifest(derived, fetcher.stats.requests - fetcher.stats.retries),
      mismatches: [...derived.mismatches],
    };
    return await finalizeSnapshot({
      layout: opened.layout,
      writer: opened.writer,
      state: opened.state,
      invariants: opened.invariants,
      clock,
      options: recorded,
      previous: run.previous,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(derive ? { derive } : {}),
      phases,
      ...(stages ? { stage: (text: string) => stages.show(text) } : {}),
    });
  } catch (error) {
    throw fileSystemError(error, `Finishing the snapshot in ${paths.staging}`);
  } finally {
    stages?.stop();
  }
}

/**
 * Publishes the finished staging at --out, unless --strict found errors or the user asked to stop. Returns what
 * publish says of the older generations it kept.
 */
async function publishSnapshot(
  { options, paths, before, opened }: RunContext,
  report: ValidationReport,
): Promise<string[]> {
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
  let kept: string[];
  try {
    kept = await publish(paths, before, opened.lock);
  } catch (error) {
    throw fileSystemError(error, `Publishing the snapshot at ${paths.out}`);
  }
  await removeStaging(paths, opened.lock).catch(() => undefined);
  return kept;
}
