/**
 * `npm run bench`: the performance figures of docs/architecture.md#performance, side by side with curl --parallel, a
 * bare Node loop and a sequential fetch loop, printed as tables and (with --json) written as JSON so that commits can
 * be compared. Timings are never asserted in the test suite; this is where they are measured.
 */
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { curlVersion, hasGnuTime } from './children.js';
import { helpText, parseOptions, type BenchOptions } from './options.js';
import { exportScenario, type ExportScenario } from './export-scenario.js';
import { runTable, verdict, type RunFigures } from './report.js';
import {
  coresScenario,
  cpuScenario,
  deriveScenario,
  latencyScenario,
  memoryScenario,
  type BenchContext,
  type CoresScenario,
  type DeriveScenario,
  type CpuScenario,
  type LatencyScenario,
  type MemoryScenario,
} from './scenarios.js';

/** docs/architecture.md#performance. */
// Issue 14's targets.
const TARGETS = {
  crawlToCurl: 1.5,
  gcPercent: 8,
  latencyCrawlToCurl: 1.05,
  peakRssMb: 200,
  peakRssAtDocuments: 200_000,
  growth: 10,
  deriveRequestRatio: 0.2,
  // Issue 28's.
  exportWallS: 30,
  exportRssMb: 200,
};

// .bench/build/bench/bench.js → the repository root.
const REPO = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..');

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The file system type of `dir` (from /proc/mounts: the longest mount point that holds it), or null. */
function fileSystemOf(dir: string): string | null {
  try {
    let best: { point: string; type: string } | null = null;
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [, point, type] = line.split(' ');
      if (point === undefined || type === undefined) continue;
      const inside = dir === point || dir.startsWith(point.endsWith('/') ? point : `${point}/`);
      if (inside && (best === null || point.length > best.point.length)) best = { point, type };
    }
    return best === null ? null : `${best.type} (mounted at ${best.point})`;
  } catch {
    return null;
  }
}

function gitCommit(): string | null {
  const probe = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' });
  if (probe.status !== 0) return null;
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO, encoding: 'utf8' });
  return `${probe.stdout.trim()}${dirty.stdout?.trim() ? ' (with local changes)' : ''}`;
}

function printCpu(result: CpuScenario, options: BenchOptions, where = ''): void {
  console.log(
    `\nCPU-bound${where}: ${result.documents} documents (sample API --records ${result.records} --page-size ` +
      `${result.pageSize}, no latency), concurrency ${result.concurrency}` +
      (options.runs > 1 ? `, median of ${options.runs} runs (walls in the JSON)` : ''),
  );
  console.log(runTable(result.runs));
  console.log(
    `sample API process: ${result.server.cpuS ?? 'n/a'} s CPU over the scenario, peak RSS ` +
      `${result.server.peakRssMb ?? 'n/a'} MB`,
  );
  const met = result.crawlToCurl === null ? null : result.crawlToCurl <= TARGETS.crawlToCurl;
  console.log(
    `fastest crawl's wall ÷ curl's: ${result.crawlToCurl ?? 'n/a (curl not run)'} (target ≤ ${TARGETS.crawlToCurl}: ` +
      `${verdict(met)}); its GC: ${result.crawlGcPercent ?? 'n/a'} % of its CPU (target ≤ ${TARGETS.gcPercent} %: ` +
      `${verdict(result.crawlGcPercent === null ? null : result.crawlGcPercent <= TARGETS.gcPercent)})`,
  );
  printNodeLoop(result);
}

/** The bare Node loop against curl and the crawl against the loop, when the loop ran. */
function printNodeLoop(result: { nodeLoopToCurl: number | null; crawlToNodeLoop: number | null }): void {
  if (result.crawlToNodeLoop === null) return;
  console.log(
    `bare Node loop's wall ÷ curl's: ${result.nodeLoopToCurl ?? 'n/a (curl not run)'} (what a client in Node pays ` +
      `here); the crawl's ÷ the loop's: ${result.crawlToNodeLoop} (what the crawl's own work costs)`,
  );
}

function printLatency(result: LatencyScenario): void {
  console.log(
    `\nLatency-bound: ${result.documents} documents, ${result.latencyMs} ms per response, concurrency ` +
      `${result.concurrency}: ideal ${result.idealPerS} req/s` +
      (result.runs[0]?.wallsS ? `, median of ${result.runs[0].wallsS.length} runs (walls in the JSON)` : ''),
  );
  console.log(
    runTable(result.runs, {
      header: 'of ideal',
      cell: (run) => `${((run.docsPerS / result.idealPerS) * 100).toFixed(1)} %`,
    }),
  );
  console.log(
    `crawl rate ÷ ideal: ${result.crawlFraction} over the process's wall time, ${result.crawlFractionInProcess} over ` +
      `the crawl's own time; curl's: ${result.curlFraction ?? 'n/a'}`,
  );
  const met = result.crawlToCurl === null ? null : result.crawlToCurl <= TARGETS.latencyCrawlToCurl;
  console.log(
    `crawl wall ÷ curl wall: ${result.crawlToCurl ?? 'n/a (curl not run)'} ` +
      `(target ≤ ${TARGETS.latencyCrawlToCurl}: ${verdict(met)})`,
  );
  printNodeLoop(result);
}

function printMemory(result: MemoryScenario): void {
  console.log(`\nMemory: peak RSS of the crawl process, concurrency ${result.concurrency}`);
  console.log(runTable(result.runs));
  const large = result.runs.filter((run) => run.documents >= TARGETS.peakRssAtDocuments);
  const within =
    large.length === 0 ? null : large.every((run) => run.peakRssMb !== null && run.peakRssMb <= TARGETS.peakRssMb);
  console.log(
    `peak RSS at ≥ ${TARGETS.peakRssAtDocuments} documents: ` +
      `${large.map((run) => `${run.peakRssMb ?? 'n/a'} MB`).join(', ') || 'not run'} ` +
      `(target ≤ ${TARGETS.peakRssMb} MB: ${verdict(within)}); largest ÷ smallest: ${result.growth ?? 'n/a'} ` +
      `(target: same order of magnitude, < ${TARGETS.growth}: ` +
      `${verdict(result.growth === null ? null : result.growth < TARGETS.growth)})`,
  );
}

function printCores(result: CoresScenario | null): void {
  if (result === null) return;
  console.log(
    `\nCores: ${result.documents} documents, no latency, concurrency ${result.concurrency}; the crawl and the sample ` +
      'API share the CPUs given (taskset)',
  );
  console.log(runTable(result.runs));
  console.log(`documents/s on every CPU ÷ on one (the fastest worker count): ${result.speedup ?? 'n/a'}`);
}

function printDerive(result: DeriveScenario): void {
  console.log(
    `\ncrawl --derive against a full crawl: ${result.latencyMs} ms per response, concurrency ${result.concurrency}`,
  );
  for (const size of result.sizes) {
    console.log(`\n--records ${size.records}: ${size.documents} documents (sample ${size.derived.sample})`);
    console.log(
      runTable([size.full, size.derived], {
        header: 'requests',
        cell: (run) => String((run as RunFigures & { requests: number }).requests),
      }),
    );
    const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)} %`;
    console.log(
      `requests: ${percent(size.requestRatio)} of the full crawl's (target ≤ ${percent(TARGETS.deriveRequestRatio)}: ` +
        `${verdict(size.requestRatio <= TARGETS.deriveRequestRatio)}); floor (root, lists, links-only ` +
        `relationships) ${percent(size.floorRatio)}; wall time ${percent(size.wallRatio)}; ` +
        `${size.derived.derivedDocuments} documents derived, ${size.derived.mismatches} samples differed`,
    );
  }
}

function printExport(result: ExportScenario): void {
  console.log(
    `\nExport: a snapshot of ${result.documents} documents (sample API --records ${result.records}), ` +
      `${result.snapshotRecords} records, in each format`,
  );
  console.log(runTable(result.runs));
  const within = result.runs.every(
    (run) => run.wallS <= TARGETS.exportWallS && run.peakRssMb !== null && run.peakRssMb <= TARGETS.exportRssMb,
  );
  console.log(`every format under ${TARGETS.exportWallS} s and ${TARGETS.exportRssMb} MB peak RSS: ${verdict(within)}`);
}

async function main(): Promise<number> {
  let options: BenchOptions | null;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${helpText()}`);
    return 2;
  }
  if (options === null) {
    process.stdout.write(helpText());
    return 0;
  }
  const cli = path.join(REPO, 'dist', 'cli.js');
  if (!existsSync(cli)) {
    process.stderr.write(`bench: ${cli} is missing; run npm run build first (npm run bench does).\n`);
    return 1;
  }
  const parent = path.resolve(
    options.dir ?? (existsSync('/dev/shm') && writable('/dev/shm') ? '/dev/shm' : os.tmpdir()),
  );
  const base = mkdtempSync(path.join(parent, 'cv-snapshot-bench-'));
  const curl = options.curl ? curlVersion() : null;
  const context: BenchContext = {
    options,
    repo: REPO,
    cli,
    base,
    curl: curl !== null,
    log: (message) => process.stderr.write(`bench: ${message}\n`),
  };
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? null,
    memoryMb: Math.round(os.totalmem() / 2 ** 20),
    node: process.version,
    curl,
    gnuTime: hasGnuTime(),
    dir: parent,
    fileSystem: fileSystemOf(base),
    commit: gitCommit(),
  };
  console.log(
    `cv-snapshot bench: ${machine.cpus} CPUs (${machine.cpuModel ?? 'unknown'}), Node ${machine.node}, ` +
      `${curl ?? 'curl not installed (or --no-curl)'}`,
  );
  console.log(
    `writing under ${parent}: ${machine.fileSystem ?? 'file system unknown'}; commit ${machine.commit ?? 'unknown'}`,
  );
  if (curl !== null && !machine.gnuTime)
    console.log("GNU time (/usr/bin/time) is not installed: curl's CPU time and peak RSS are not measured.");

  const results: {
    cpu?: CpuScenario;
    disk?: CpuScenario & { fileSystem: string | null };
    latency?: LatencyScenario;
    memory?: MemoryScenario;
    cores?: CoresScenario | null;
    derive?: DeriveScenario;
    export?: ExportScenario;
  } = {};
  const loads: Record<string, number> = {};
  try {
    for (const scenario of options.scenarios) {
      // Other work on the machine shows in every figure: the load average says how much there was.
      console.log(
        `\nload average before the ${scenario} scenario: ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')} (${machine.cpus} CPUs)`,
      );
      loads[scenario] = os.loadavg()[0]!;
      if (scenario === 'cpu') printCpu((results.cpu = await cpuScenario(context)), options, `, output on ${parent}`);
      if (scenario === 'disk') {
        // The CPU-bound scenario again, writing where users write: a disk, not memory.
        const diskParent = path.resolve(options.diskDir ?? path.join(REPO, '.bench', 'disk'));
        mkdirSync(diskParent, { recursive: true });
        const diskBase = mkdtempSync(path.join(diskParent, 'cv-snapshot-bench-'));
        try {
          const fileSystem = fileSystemOf(diskBase);
          results.disk = { ...(await cpuScenario({ ...context, base: diskBase, keepRuns: true })), fileSystem };
          printCpu(results.disk, options, `, output on ${diskParent}: ${fileSystem ?? 'file system unknown'}`);
        } finally {
          if (!options.keep) rmSync(diskBase, { recursive: true, force: true });
        }
      }
      if (scenario === 'latency') printLatency((results.latency = await latencyScenario(context)));
      if (scenario === 'memory') printMemory((results.memory = await memoryScenario(context)));
      if (scenario === 'cores') printCores((results.cores = await coresScenario(context)));
      if (scenario === 'derive') printDerive((results.derive = await deriveScenario(context)));
      if (scenario === 'export') printExport((results.export = await exportScenario(context)));
    }
  } finally {
    if (!options.keep) rmSync(base, { recursive: true, force: true });
  }
  if (options.json !== undefined) {
    const document = {
      date: new Date().toISOString(),
      machine,
      targets: TARGETS,
      options,
      loadAverageBefore: loads,
      ...results,
    };
    writeFileSync(options.json, `${JSON.stringify(document, null, 2)}\n`);
    console.log(`\nfigures written to ${options.json}`);
  }
  return 0;
}

process.exitCode = await main();
