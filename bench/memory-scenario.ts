/**
 * The memory scenario: peak RSS of the crawl at each size of `--memory-records`, then, on the largest crawl's
 * snapshot, of the other commands that read a whole snapshot: `crawl --derive` (of the sample API's next
 * release, so that `diff` then compares two releases of the same size), `diff`, `verify` and `catalogue`. The largest
 * snapshot is kept for the export scenario, which exports it instead of crawling again.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { executableSettings, runNode, startSampleApiProcess, type ChildRun } from './children.js';
import { figures, type RunFigures } from './report.js';
import { cpuBySize, type CpuBySize, type CrawlCpu } from './cpu-figures.js';
import { assertExited, crawlOnce, crawlRun, serverArgs, type BenchContext } from './scenarios.js';

/** A command reads a snapshot "streamed" when its peak RSS is at most this share of the crawl's that wrote it. */
export const STREAMED_SHARE = 0.5;

/** A command run on the largest snapshot, against the crawl that wrote it. */
export type CommandFigures = RunFigures & {
  /** Peak RSS ÷ the crawl's peak RSS at the same size; null when either is missing. */
  rssOfCrawl: number | null;
  /** rssOfCrawl ≤ STREAMED_SHARE; null when not measured. */
  streamed: boolean | null;
};

export interface MemoryScenario {
  concurrency: number;
  runs: Array<RunFigures & { records: number }>;
  /** Peak RSS of the largest crawl ÷ that of the smallest. */
  growth: number | null;
  /** The commands run on the largest snapshot: crawl --derive, diff, verify, catalogue. */
  commands: CommandFigures[];
  /** The crawl's CPU per document and per run, from the smallest and the largest crawl; null with one size. */
  cpuBySize: CpuBySize | null;
}

/** A snapshot one scenario made and a later one reads (the export scenario), with its crawl's peak RSS. */
export interface SharedSnapshot {
  dir: string;
  documents: number;
  crawlPeakRssMb: number | null;
}

export function againstCrawl(run: RunFigures, crawlPeakRssMb: number | null): CommandFigures {
  const rssOfCrawl =
    run.peakRssMb === null || crawlPeakRssMb === null ? null : Number((run.peakRssMb / crawlPeakRssMb).toFixed(3));
  return { ...run, rssOfCrawl, streamed: rssOfCrawl === null ? null : rssOfCrawl <= STREAMED_SHARE };
}

/** Runs `cv-snapshot <args>` as the installed command runs (the executable's settings). */
export function runCli(context: BenchContext, args: string[]): Promise<ChildRun> {
  const executable = executableSettings(context.cli);
  return runNode([...executable.flags, context.cli, ...args], context.base, context.repo, executable.env);
}

export async function memoryScenario(context: BenchContext): Promise<MemoryScenario> {
  const { memoryRecords, pageSize, concurrency } = context.options;
  const largest = Math.max(...memoryRecords);
  const dir = path.join(context.base, `memory-${largest}`);
  mkdirSync(dir, { recursive: true });
  const runs: MemoryScenario['runs'] = [];
  const cpus: Array<{ documents: number; cpu: CrawlCpu | undefined }> = [];
  for (const records of memoryRecords) {
    const api = await startSampleApiProcess(context.cli, serverArgs(records, pageSize, 0), context.base);
    try {
      context.log(`memory: crawl of the sample API with ${records} records per collection`);
      // The largest crawl's snapshot is read by the commands below, and by the export scenario.
      // Each snapshot in a directory of its own: crawl publishes beside --out (a link and the tree it names).
      const keep =
        records === largest && !context.snapshots.has(records) ? path.join(dir, 'release-0', 'out') : undefined;
      const crawl = await crawlOnce(context, api, crawlRun(context, concurrency), concurrency, [], keep);
      runs.push({ ...crawl.figures, name: `crawl of ${crawl.summary.documents} documents`, records });
      cpus.push({ documents: crawl.summary.documents, cpu: crawl.summary.cpu });
      if (keep !== undefined) {
        context.snapshots.set(records, {
          dir: keep,
          documents: crawl.summary.documents,
          crawlPeakRssMb: crawl.figures.peakRssMb,
        });
      }
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
  const commands = await commandsOn(context, largest, dir);
  cpus.sort((a, b) => a.documents - b.documents);
  const cpu = cpus.length > 1 ? cpuBySize(cpus[0]!, cpus.at(-1)!) : null;
  return { concurrency, runs, growth, commands, cpuBySize: cpu };
}

/** crawl --derive, diff, verify and catalogue on the largest snapshot (see the top of the file). */
async function commandsOn(context: BenchContext, records: number, dir: string): Promise<CommandFigures[]> {
  const { pageSize, concurrency } = context.options;
  const snapshot = context.snapshots.get(records)!;
  const commands: CommandFigures[] = [];
  const next = path.join(dir, 'release-1', 'out');
  const api = await startSampleApiProcess(
    context.cli,
    [...serverArgs(records, pageSize, 0), '--release', '1'],
    context.base,
  );
  try {
    context.log(`memory: crawl --derive of the next release (sample API --release 1), ${records} records`);
    const variant = crawlRun(context, concurrency);
    const derive = await crawlOnce(
      context,
      api,
      { name: variant.name.replace('crawl', 'crawl --derive'), extra: variant.extra },
      concurrency,
      ['--derive', '--verify-seed', '1'],
      next,
    );
    const name = `crawl --derive of ${derive.summary.documents} documents (next release)`;
    commands.push(againstCrawl({ ...derive.figures, name }, snapshot.crawlPeakRssMb));
  } finally {
    await api.stop();
  }
  const measure = async (name: string, args: string[]): Promise<void> => {
    context.log(`memory: ${name}`);
    const run = await runCli(context, args);
    assertExited(`cv-snapshot ${args[0]}`, run);
    commands.push(againstCrawl(figures(name, snapshot.documents, run, null), snapshot.crawlPeakRssMb));
  };
  // diff exits 0 when it compared (1 only with --exit-code and a difference); its JSON stays in the bench's memory.
  await measure(`diff of two releases, ${snapshot.documents} documents each`, [
    'diff',
    snapshot.dir,
    next,
    '--format',
    'json',
  ]);
  if (!context.options.keep) rmSync(path.dirname(next), { recursive: true, force: true });
  await measure(`verify of ${snapshot.documents} documents`, ['verify', snapshot.dir, '--quiet']);
  const published = path.join(dir, 'catalogue', 'out');
  await measure(`catalogue of ${snapshot.documents} documents`, ['catalogue', snapshot.dir, '--out', published]);
  if (!context.options.keep) rmSync(path.dirname(published), { recursive: true, force: true });
  return commands;
}
