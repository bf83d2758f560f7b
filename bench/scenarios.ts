/**
 * What the scenarios share (docs/performance.md), and the latency scenario. Every run starts from a fresh directory on
 * the same file system, against a sample API in a process of its own; the crawl runs as users run it (`node
 * dist/cli.js crawl` with the executable's settings).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSampleData, listDocumentUrls } from '../src/sample-api/index.js';
import { Layout } from '../src/format/layout.js';
import { canonicalUrl } from '../src/url/canonical-url.js';
import {
  cpuMsOf,
  executableSettings,
  runNode,
  runProgram,
  startSampleApiProcess,
  type ChildRun,
  type SampleApiProcess,
} from './children.js';
import type { CrawlCpu } from './cpu-figures.js';
import type { SharedSnapshot } from './memory-scenario.js';
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
  /** Snapshots kept for later scenarios, by sample API records (the memory scenario's largest, for export). */
  snapshots: Map<number, SharedSnapshot>;
  log(message: string): void;
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
  /**
   * The same crawl with `--catalogue none`, one in every run, alternating (its median is a row of `runs`); null with
   * --no-without-catalogue.
   */
  withoutCatalogue: { crawlToCurl: number | null } | null;
}

/** What `cv-snapshot crawl --json` prints, as far as the bench reads it. */
export interface CrawlSummary {
  documents: number;
  requests: number;
  seconds: number;
  /** Absent from crawls of builds that did not count their CPU. */
  cpu?: CrawlCpu;
  derive?: { requests: number; derived: number; fetched: number; mismatches: number; sample: string };
}

export function freshDir(context: BenchContext, name: string): string {
  return mkdtempSync(path.join(context.base, `${name}-`));
}

function discard(context: BenchContext, dir: string): void {
  if (!context.options.keep && context.keepRuns !== true) rmSync(dir, { recursive: true, force: true });
}

export function assertExited(what: string, run: ChildRun): void {
  if (run.code !== 0) throw new Error(`${what} failed (exit ${String(run.code)}): ${run.stderr.trim().slice(0, 2000)}`);
}

/** Canonical URL of every document the sample API serves (what curl and the sequential loop are handed). */
export function documentUrls(rootUrl: string, records: number, pageSize: number): string[] {
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
export function crawlRun(
  context: BenchContext,
  concurrency: number,
  workers = context.options.workers?.[0],
): { name: string; extra: string[] } {
  if (workers === undefined) return { name: `cv-snapshot crawl -c ${concurrency}`, extra: [] };
  return { name: `cv-snapshot crawl -c ${concurrency} -w ${workers}`, extra: ['--workers', String(workers)] };
}

/**
 * `variant` with the catalogue left out (`--catalogue none`): what a figure would read were the catalogue built after
 * the crawl (`cv-snapshot catalogue`) rather than in it.
 */
export function withoutCatalogueVariant(variant: CrawlVariant): CrawlVariant {
  return { name: `${variant.name} --catalogue none`, extra: [...variant.extra, '--catalogue', 'none'] };
}

/** A crawl as the bench runs it: its name in the tables, its options, and how its process is started. */
export interface CrawlVariant {
  name: string;
  extra: string[];
  /** taskset's list of CPUs to run on. */
  cpus?: string;
  /** Options for node itself, after the executable's (such as --cpu-prof). */
  nodeFlags?: string[];
}

/**
 * One crawl, from a fresh directory that is removed afterwards, or into `keepOut` (a snapshot that later runs read,
 * removed with the bench's directory).
 */
export async function crawlOnce(
  context: BenchContext,
  api: SampleApiProcess,
  variant: CrawlVariant,
  concurrency: number,
  extra: string[] = [],
  keepOut?: string,
): Promise<{ figures: RunFigures; summary: CrawlSummary }> {
  const { name } = variant;
  extra = [...variant.extra, ...extra];
  const dir = keepOut === undefined ? freshDir(context, 'crawl') : undefined;
  const executable = executableSettings(context.cli);
  const args = [
    ...executable.flags,
    ...(variant.nodeFlags ?? []),
    context.cli,
    'crawl',
    api.rootUrl,
    '--out',
    keepOut ?? path.join(dir!, 'out'),
    '--concurrency',
    String(concurrency),
    '--quiet',
    '--json',
    ...extra,
  ];
  const { run, serverCpuMs } = await measured(api, () =>
    runNode(args, context.base, context.repo, executable.env, variant.cpus),
  );
  if (dir !== undefined) discard(context, dir);
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

export function curlOnce(
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
export function nodeLoopOnce(
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
export function ratio(a: RunFigures | undefined, b: RunFigures | undefined): number | null {
  return a === undefined || b === undefined ? null : Number((a.wallS / b.wallS).toFixed(3));
}

export async function sequentialOnce(
  context: BenchContext,
  api: SampleApiProcess,
  urls: string[],
): Promise<RunFigures> {
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

export function serverArgs(records: number, pageSize: number, latencyMs: number): string[] {
  return ['--records', String(records), '--page-size', String(pageSize), '--latency', String(latencyMs)];
}

export async function latencyScenario(context: BenchContext): Promise<LatencyScenario> {
  const { latencyRecords: records, pageSize, concurrency, latencyMs, runs } = context.options;
  const api = await startSampleApiProcess(context.cli, serverArgs(records, pageSize, latencyMs), context.base);
  try {
    const urls = documentUrls(api.rootUrl, records, pageSize);
    const idealPerS = (concurrency * 1000) / latencyMs;
    context.log(`latency: ${urls.length} documents at ${latencyMs} ms each; ideal ${idealPerS} req/s`);
    const crawls: Array<{ figures: RunFigures; summary: CrawlSummary }> = [];
    const bares: RunFigures[] = [];
    const curls: RunFigures[] = [];
    const loops: RunFigures[] = [];
    const variant = crawlRun(context, concurrency);
    for (let i = 1; i <= runs; i += 1) {
      context.log(`latency: cv-snapshot crawl, run ${i} of ${runs}`);
      crawls.push(await crawlOnce(context, api, variant, concurrency));
      if (context.options.withoutCatalogue) {
        context.log(`latency: cv-snapshot crawl --catalogue none, run ${i} of ${runs}`);
        bares.push((await crawlOnce(context, api, withoutCatalogueVariant(variant), concurrency)).figures);
      }
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
    const bare = bares.length > 0 ? median(bares) : undefined;
    const rows = [middle, ...(bare ? [bare] : []), ...(curl ? [curl] : []), ...(loop ? [loop] : [])];
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
      withoutCatalogue: bare === undefined ? null : { crawlToCurl: ratio(bare, curl) },
    };
  } finally {
    await api.stop();
  }
}
