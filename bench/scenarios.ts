/**
 * The three scenarios of docs/architecture.md#performance. Every run starts from a fresh directory on the same file
 * system, against a sample API in a process of its own; the crawl runs as users run it (`node dist/cli.js crawl`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSampleData, listDocumentUrls } from '../src/sample-api/index.js';
import { Layout } from '../src/format/layout.js';
import { canonicalUrl } from '../src/url/canonical-url.js';
import {
  cpuMsOf,
  executableSettings,
  hasTaskset,
  pin,
  runNode,
  runProgram,
  startSampleApiProcess,
  type ChildRun,
  type SampleApiProcess,
} from './children.js';
import type { BenchOptions } from './options.js';
import { figures, median, type RunFigures } from './report.js';

const SEQUENTIAL = fileURLToPath(new URL('./sequential-fetch.js', import.meta.url));
const PARALLEL = fileURLToPath(new URL('./parallel-fetch.js', import.meta.url));

export interface BenchContext {
  options: BenchOptions;
  /** Repository root (the crawl runs from here). */
  repo: string;
  cli: string;
  /** Directory every run writes under (on the file system the bench reports). */
  base: string;
  /**
   * Keep each run's output until `base` is removed, instead of removing it after the run. The disk scenario does:
   * on ext4 without a journal, creating files in the minutes after tens of thousands were deleted costs many times
   * more system time (the kernel skips recently deleted inodes one by one), so a removed run would slow the next.
   */
  keepRuns?: boolean;
  curl: boolean;
  log(message: string): void;
}

export interface CpuScenario {
  records: number;
  pageSize: number;
  concurrency: number;
  documents: number;
  runs: RunFigures[];
  /** The fastest crawl's wall time ÷ curl's (target ≤ 1.5); null without curl. */
  crawlToCurl: number | null;
  /** The bare Node loop's wall time ÷ curl's: what being a Node client costs; null without one of them. */
  nodeLoopToCurl: number | null;
  /** The fastest crawl's wall time ÷ the bare Node loop's: what the crawl's own work costs; null without the loop. */
  crawlToNodeLoop: number | null;
  /** Garbage collection as a share of the fastest crawl's CPU, in percent (target ≤ 8). */
  crawlGcPercent: number | null;
  /** Sample API process over the whole scenario. */
  server: { cpuS: number | null; peakRssMb: number | null };
}

export interface LatencyScenario {
  latencyMs: number;
  records: number;
  concurrency: number;
  documents: number;
  idealPerS: number;
  runs: RunFigures[];
  /** Crawl documents/s ÷ ideal over the crawl process's wall time. */
  crawlFraction: number;
  /** The same over the time the crawl itself reports (without process start-up). */
  crawlFractionInProcess: number;
  curlFraction: number | null;
  /** Crawl wall time ÷ curl wall time, medians (target ≤ 1.05); null without curl. */
  crawlToCurl: number | null;
  /** As in the cpu scenario, with the median crawl. */
  nodeLoopToCurl: number | null;
  crawlToNodeLoop: number | null;
}

export interface MemoryScenario {
  concurrency: number;
  runs: Array<RunFigures & { records: number }>;
  /** Peak RSS of the largest crawl ÷ that of the smallest. */
  growth: number | null;
}

interface CrawlSummary {
  documents: number;
  requests: number;
  seconds: number;
  derive?: { requests: number; derived: number; fetched: number; mismatches: number; sample: string };
}

export interface DeriveScenario {
  latencyMs: number;
  concurrency: number;
  sizes: Array<{
    records: number;
    documents: number;
    full: RunFigures & { requests: number };
    derived: RunFigures & { requests: number; derivedDocuments: number; mismatches: number; sample: string };
    /** Derived requests ÷ full requests (target ≤ 0.2). */
    requestRatio: number;
    /** Derived wall time ÷ full wall time. */
    wallRatio: number;
    /** The root, the list pages and one request per links-only relationship, ÷ the full crawl's requests. */
    floorRatio: number;
  }>;
}

function freshDir(context: BenchContext, name: string): string {
  return mkdtempSync(path.join(context.base, `${name}-`));
}

function discard(context: BenchContext, dir: string): void {
  if (!context.options.keep && context.keepRuns !== true) rmSync(dir, { recursive: true, force: true });
}

function assertExited(what: string, run: ChildRun): void {
  if (run.code !== 0) throw new Error(`${what} failed (exit ${String(run.code)}): ${run.stderr.trim().slice(0, 2000)}`);
}

/** Canonical URL of every document the sample API serves (what curl and the sequential loop are handed). */
function documentUrls(rootUrl: string, records: number, pageSize: number): string[] {
  const data = createSampleData({ seed: 1, records });
  return listDocumentUrls(data, rootUrl, pageSize).map((url) => canonicalUrl(url));
}

/** Where the snapshot stores each URL's document, relative to the tree: curl writes the same files. */
function treeFiles(rootUrl: string, urls: string[]): string[] {
  const layout = new Layout(canonicalUrl(rootUrl));
  return urls.map((url) => {
    const placement = layout.place(url);
    if (!placement.ok) throw new Error(`the snapshot does not store ${url}: ${placement.reason}`);
    return placement.file;
  });
}

/**
 * Measures `run` and the sample API's CPU time over it. The file systems are synced first, so that no run pays for
 * writing back what an earlier one wrote or removed (on a disk that took seconds of system time).
 */
async function measured(
  api: SampleApiProcess,
  run: () => Promise<ChildRun>,
): Promise<{ run: ChildRun; serverCpuMs: number | null }> {
  spawnSync('sync');
  const before = cpuMsOf(api.pid);
  const result = await run();
  const after = cpuMsOf(api.pid);
  return { run: result, serverCpuMs: before === null || after === null ? null : after - before };
}

/** The crawl's name in the tables, and its --workers argument: `workers` when given, else the first of --workers. */
function crawlRun(
  context: BenchContext,
  concurrency: number,
  workers = context.options.workers?.[0],
): { name: string; extra: string[] } {
  if (workers === undefined) return { name: `cv-snapshot crawl -c ${concurrency}`, extra: [] };
  return { name: `cv-snapshot crawl -c ${concurrency} -w ${workers}`, extra: ['--workers', String(workers)] };
}

async function crawlOnce(
  context: BenchContext,
  api: SampleApiProcess,
  variant: { name: string; extra: string[]; cpus?: string },
  concurrency: number,
  extra: string[] = [],
): Promise<{ figures: RunFigures; summary: CrawlSummary }> {
  const { name } = variant;
  extra = [...variant.extra, ...extra];
  const dir = freshDir(context, 'crawl');
  const executable = executableSettings(context.cli);
  const args = [
    ...executable.flags,
    context.cli,
    'crawl',
    api.rootUrl,
    '--out',
    path.join(dir, 'out'),
    '--concurrency',
    String(concurrency),
    '--quiet',
    '--json',
    ...extra,
  ];
  const { run, serverCpuMs } = await measured(api, () =>
    runNode(args, context.base, context.repo, executable.env, variant.cpus),
  );
  discard(context, dir);
  assertExited('cv-snapshot crawl', run);
  const summary = JSON.parse(run.stdout) as CrawlSummary;
  return { figures: figures(name, summary.documents, run, serverCpuMs), summary };
}

/**
 * One run of a program that mirrors `urls` into the files of the snapshot's tree (directories and all), as a mirror
 * made without cv-snapshot would be: `start` is handed the directory to write in and each URL's file, and the files
 * are counted on disk afterwards.
 */
async function mirrorOnce(
  context: BenchContext,
  api: SampleApiProcess,
  urls: string[],
  name: string,
  start: (dir: string, out: string, files: string[]) => Promise<ChildRun>,
): Promise<RunFigures> {
  const dir = freshDir(context, 'mirror');
  const out = path.join(dir, 'files');
  mkdirSync(out);
  const files = treeFiles(api.rootUrl, urls);
  const { run, serverCpuMs } = await measured(api, () => start(dir, out, files));
  const written = files.filter((file) => existsSync(path.join(out, file))).length;
  discard(context, dir);
  assertExited(name, run);
  if (written !== urls.length) throw new Error(`${name} wrote ${written} files for ${urls.length} URLs.`);
  return figures(name, written, run, serverCpuMs);
}

function curlOnce(
  context: BenchContext,
  api: SampleApiProcess,
  urls: string[],
  concurrency: number,
): Promise<RunFigures> {
  return mirrorOnce(context, api, urls, `curl --parallel-max ${concurrency}`, (dir, out, files) => {
    const config = path.join(dir, 'urls.curl');
    writeFileSync(config, urls.map((url, i) => `url = "${url}"\noutput = "${path.join(out, files[i]!)}"\n`).join(''));
    const args = [
      '--globoff', // the URLs hold page[number]
      '--create-dirs',
      '--parallel',
      '--parallel-max',
      String(concurrency),
      '--silent',
      '--show-error',
      '--fail',
      '--compressed',
      '-H',
      'Accept: application/vnd.api+json',
      '-K',
      config,
    ];
    return runProgram('curl', args, context.base, context.repo);
  });
}

/** The bare Node loop (parallel-fetch.ts): the same files as curl's, fetched on undici as the crawl fetches. */
function nodeLoopOnce(
  context: BenchContext,
  api: SampleApiProcess,
  urls: string[],
  concurrency: number,
): Promise<RunFigures> {
  return mirrorOnce(context, api, urls, `bare Node loop -c ${concurrency}`, (dir, out, files) => {
    const list = path.join(dir, 'urls.txt');
    writeFileSync(list, urls.map((url, i) => `${url}\t${files[i]!}\n`).join(''));
    return runNode([PARALLEL, list, out, String(concurrency)], context.base, context.repo);
  });
}

/** a ÷ b to three places, or null when either is missing. */
function ratio(a: RunFigures | undefined, b: RunFigures | undefined): number | null {
  return a === undefined || b === undefined ? null : Number((a.wallS / b.wallS).toFixed(3));
}

async function sequentialOnce(context: BenchContext, api: SampleApiProcess, urls: string[]): Promise<RunFigures> {
  const dir = freshDir(context, 'sequential');
  const out = path.join(dir, 'files');
  mkdirSync(out);
  const list = path.join(dir, 'urls.txt');
  writeFileSync(list, `${urls.join('\n')}\n`);
  const { run, serverCpuMs } = await measured(api, () => runNode([SEQUENTIAL, list, out], context.base, context.repo));
  discard(context, dir);
  assertExited('the sequential fetch loop', run);
  return figures('sequential fetch loop', Number(run.stdout.trim()), run, serverCpuMs);
}

function serverArgs(records: number, pageSize: number, latencyMs: number): string[] {
  return ['--records', String(records), '--page-size', String(pageSize), '--latency', String(latencyMs)];
}

export async function cpuScenario(context: BenchContext): Promise<CpuScenario> {
  const { records, pageSize, concurrency, runs } = context.options;
  const api = await startSampleApiProcess(context.cli, serverArgs(records, pageSize, 0), context.base);
  try {
    const urls = documentUrls(api.rootUrl, records, pageSize);
    context.log(`cpu: ${urls.length} documents, sample API at ${api.rootUrl}`);
    // One crawl per worker count asked for (or the crawl's default), each in every run.
    const variants = (context.options.workers ?? [undefined]).map((workers) => crawlRun(context, concurrency, workers));
    const crawls: RunFigures[][] = variants.map(() => []);
    const curls: RunFigures[] = [];
    const loops: RunFigures[] = [];
    for (let i = 1; i <= runs; i += 1) {
      // Alternated, so that none profits from a warmer server.
      for (const [v, variant] of variants.entries()) {
        context.log(`cpu: ${variant.name}, run ${i} of ${runs}`);
        const crawl = await crawlOnce(context, api, variant, concurrency);
        if (crawl.summary.documents !== urls.length) {
          throw new Error(
            `the crawl found ${crawl.summary.documents} documents; the sample API serves ${urls.length}.`,
          );
        }
        crawls[v]!.push(crawl.figures);
      }
      if (context.curl) {
        context.log(`cpu: curl --parallel, run ${i} of ${runs}`);
        curls.push(await curlOnce(context, api, urls, concurrency));
      }
      if (context.options.nodeLoop) {
        context.log(`cpu: bare Node loop, run ${i} of ${runs}`);
        loops.push(await nodeLoopOnce(context, api, urls, concurrency));
      }
    }
    const crawlRows = crawls.map((figures) => median(figures));
    const curl = curls.length > 0 ? median(curls) : undefined;
    const loop = loops.length > 0 ? median(loops) : undefined;
    const rows = [...crawlRows, ...(curl ? [curl] : []), ...(loop ? [loop] : [])];
    if (context.options.sequential) {
      context.log('cpu: sequential fetch loop');
      rows.push(await sequentialOnce(context, api, urls));
    }
    // With several worker counts, the ratio is the fastest one's.
    const crawl = crawlRows.reduce((best, row) => (row.wallS < best.wallS ? row : best));
    const server = await api.stop();
    return {
      records,
      pageSize,
      concurrency,
      documents: urls.length,
      runs: rows,
      crawlToCurl: ratio(crawl, curl),
      nodeLoopToCurl: ratio(loop, curl),
      crawlToNodeLoop: ratio(crawl, loop),
      crawlGcPercent: crawl.gcPercent,
      server: {
        cpuS:
          server.userMs === null || server.sysMs === null
            ? null
            : Number(((server.userMs + server.sysMs) / 1000).toFixed(2)),
        peakRssMb: server.maxRssKb === null ? null : Number((server.maxRssKb / 1024).toFixed(1)),
      },
    };
  } finally {
    await api.stop();
  }
}

export async function latencyScenario(context: BenchContext): Promise<LatencyScenario> {
  const { latencyRecords: records, pageSize, concurrency, latencyMs, runs } = context.options;
  const api = await startSampleApiProcess(context.cli, serverArgs(records, pageSize, latencyMs), context.base);
  try {
    const urls = documentUrls(api.rootUrl, records, pageSize);
    const idealPerS = (concurrency * 1000) / latencyMs;
    context.log(`latency: ${urls.length} documents at ${latencyMs} ms each; ideal ${idealPerS} req/s`);
    const crawls: Array<{ figures: RunFigures; summary: CrawlSummary }> = [];
    const curls: RunFigures[] = [];
    const loops: RunFigures[] = [];
    for (let i = 1; i <= runs; i += 1) {
      context.log(`latency: cv-snapshot crawl, run ${i} of ${runs}`);
      crawls.push(await crawlOnce(context, api, crawlRun(context, concurrency), concurrency));
      if (context.curl) {
        context.log(`latency: curl --parallel, run ${i} of ${runs}`);
        curls.push(await curlOnce(context, api, urls, concurrency));
      }
      if (context.options.nodeLoop) {
        context.log(`latency: bare Node loop, run ${i} of ${runs}`);
        loops.push(await nodeLoopOnce(context, api, urls, concurrency));
      }
    }
    // The median run by wall time, with its own request count and in-process time.
    const middle = median(crawls.map((run) => run.figures));
    const crawl = crawls.find((run) => run.figures.wallS === middle.wallS)!;
    const curl = curls.length > 0 ? median(curls) : undefined;
    const loop = loops.length > 0 ? median(loops) : undefined;
    const rows = [middle, ...(curl ? [curl] : []), ...(loop ? [loop] : [])];
    return {
      latencyMs,
      records,
      concurrency,
      documents: urls.length,
      idealPerS,
      runs: rows,
      crawlFraction: Number((crawl.summary.requests / crawl.figures.wallS / idealPerS).toFixed(3)),
      crawlFractionInProcess: Number((crawl.summary.requests / crawl.summary.seconds / idealPerS).toFixed(3)),
      curlFraction: curl === undefined ? null : Number((curl.documents / curl.wallS / idealPerS).toFixed(3)),
      crawlToCurl: ratio(middle, curl),
      nodeLoopToCurl: ratio(loop, curl),
      crawlToNodeLoop: ratio(middle, loop),
    };
  } finally {
    await api.stop();
  }
}

export async function memoryScenario(context: BenchContext): Promise<MemoryScenario> {
  const { memoryRecords, pageSize, concurrency } = context.options;
  const runs: MemoryScenario['runs'] = [];
  for (const records of memoryRecords) {
    const api = await startSampleApiProcess(context.cli, serverArgs(records, pageSize, 0), context.base);
    try {
      context.log(`memory: crawl of the sample API with ${records} records per collection`);
      const crawl = await crawlOnce(context, api, crawlRun(context, concurrency), concurrency);
      runs.push({ ...crawl.figures, name: `crawl of ${crawl.summary.documents} documents`, records });
    } finally {
      await api.stop();
    }
  }
  const bySize = [...runs].sort((a, b) => a.documents - b.documents);
  const [small, large] = [bySize[0], bySize.at(-1)];
  const growth =
    small?.peakRssMb != null && large?.peakRssMb != null && bySize.length > 1
      ? Number((large.peakRssMb / small.peakRssMb).toFixed(2))
      : null;
  return { concurrency, runs, growth };
}

/**
 * `crawl --derive` against a full crawl of the same source, at each size of `--derive-records` and `--latency` per
 * response: requests (the issue's target: at most a fifth of the full crawl's, samples included) and wall time. The
 * floor is what a derived crawl cannot avoid: the root, the list pages and the links-only relationships (spec 2.4's
 * successor), whose linkage only their own documents hold.
 */
export async function deriveScenario(context: BenchContext): Promise<DeriveScenario> {
  const { deriveRecords, pageSize, concurrency, latencyMs } = context.options;
  const sizes: DeriveScenario['sizes'] = [];
  for (const records of deriveRecords) {
    const api = await startSampleApiProcess(context.cli, serverArgs(records, pageSize, latencyMs), context.base);
    try {
      const urls = documentUrls(api.rootUrl, records, pageSize);
      const floor = urls.filter((url) => !/\/\d+\//.test(url) || url.includes('/relationships/successor')).length;
      context.log(`derive: ${urls.length} documents at ${latencyMs} ms each: full crawl`);
      const full = await crawlOnce(context, api, crawlRun(context, concurrency), concurrency);
      context.log(`derive: ${urls.length} documents at ${latencyMs} ms each: crawl --derive`);
      const derived = await crawlOnce(
        context,
        api,
        { name: `cv-snapshot crawl --derive -c ${concurrency}`, extra: [] },
        concurrency,
        ['--derive', '--verify-seed', '1'],
      );
      const derive = derived.summary.derive;
      if (derive === undefined) throw new Error('crawl --derive printed no derive summary.');
      if (derived.summary.documents !== full.summary.documents) {
        throw new Error(
          `crawl --derive stored ${derived.summary.documents} documents, the full crawl ${full.summary.documents}.`,
        );
      }
      sizes.push({
        records,
        documents: urls.length,
        full: { ...full.figures, requests: full.summary.requests },
        derived: {
          ...derived.figures,
          requests: derived.summary.requests,
          derivedDocuments: derive.derived,
          mismatches: derive.mismatches,
          sample: derive.sample,
        },
        requestRatio: Number((derived.summary.requests / full.summary.requests).toFixed(4)),
        wallRatio: Number((derived.figures.wallS / full.figures.wallS).toFixed(3)),
        floorRatio: Number((floor / full.summary.requests).toFixed(4)),
      });
    } finally {
      await api.stop();
    }
  }
  return { latencyMs, concurrency, sizes };
}

export interface CoresScenario {
  documents: number;
  concurrency: number;
  /** One row per setting: the CPUs the crawl and the sample API share, and the crawl's worker threads. */
  runs: Array<RunFigures & { cpus: number; workers: number }>;
  /** Documents per second on all CPUs ÷ on one, for the fastest worker count; null when not measured. */
  speedup: number | null;
}

/**
 * How the crawl's throughput scales with the cores it has: the CPU-bound scenario's source and crawl pinned together
 * to one CPU (taskset), then on every CPU, with each worker count of --workers (default 0, 1 and 2). Medians of
 * --runs, the settings alternating.
 */
export async function coresScenario(context: BenchContext): Promise<CoresScenario | null> {
  if (!hasTaskset()) {
    context.log('cores: taskset is not installed (util-linux); skipped');
    return null;
  }
  const { records, pageSize, concurrency, runs } = context.options;
  const all = `0-${os.availableParallelism() - 1}`;
  const settings: Array<{ cpus: number; workers: number }> = [{ cpus: 1, workers: 0 }];
  for (const workers of context.options.workers ?? [0, 1, 2]) {
    settings.push({ cpus: os.availableParallelism(), workers });
  }
  const api = await startSampleApiProcess(context.cli, serverArgs(records, pageSize, 0), context.base);
  try {
    const documents = documentUrls(api.rootUrl, records, pageSize).length;
    context.log(`cores: ${documents} documents, on 1 and ${os.availableParallelism()} CPUs`);
    const measured: RunFigures[][] = settings.map(() => []);
    for (let i = 1; i <= runs; i += 1) {
      for (const [s, { cpus, workers }] of settings.entries()) {
        context.log(`cores: ${cpus} CPU${cpus === 1 ? '' : 's'}, ${workers} workers, run ${i} of ${runs}`);
        // The source shares the crawl's CPUs, as it shares the machine in the other scenarios.
        pin(api.pid, cpus === 1 ? '0' : all);
        const variant = {
          name: `crawl on ${cpus} CPU${cpus === 1 ? '' : 's'}, ${workers} worker${workers === 1 ? '' : 's'}`,
          extra: ['--workers', String(workers)],
          ...(cpus === 1 ? { cpus: '0' } : {}),
        };
        const crawl = await crawlOnce(context, api, variant, concurrency);
        if (crawl.summary.documents !== documents) {
          throw new Error(`the crawl found ${crawl.summary.documents} documents; the sample API serves ${documents}.`);
        }
        measured[s]!.push(crawl.figures);
      }
    }
    pin(api.pid, all);
    const rows = measured.map((figures, s) => ({ ...median(figures), ...settings[s]! }));
    const single = rows[0]!;
    const best = rows.slice(1).reduce((a, b) => (b.docsPerS > a.docsPerS ? b : a), rows[1]!);
    return {
      documents,
      concurrency,
      runs: rows,
      speedup: single.docsPerS > 0 ? Number((best.docsPerS / single.docsPerS).toFixed(2)) : null,
    };
  } finally {
    await api.stop();
  }
}
