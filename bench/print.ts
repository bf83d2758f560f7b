/** The bench's text output: one section per scenario, then the table of the targets (targets.ts). */
import type { CoresScenario } from './cores-scenario.js';
import type { CpuBySize, CpuPerDocument } from './cpu-figures.js';
import type { ProfileItem } from './cpu-profile.js';
import type { CpuScenario, ThreadSplit } from './cpu-scenario.js';
import type { DeriveScenario } from './derive-scenario.js';
import type { ExportScenario } from './export-scenario.js';
import { STREAMED_SHARE, type CommandFigures, type MemoryScenario } from './memory-scenario.js';
import type { BenchOptions } from './options.js';
import { runTable, table, verdict, type RunFigures } from './report.js';
import type { LatencyScenario } from './scenarios.js';
import type { TargetRow } from './targets.js';

/** Thresholds of the figures printed beside their scenario rather than in the targets' table (targets.ts). */
export const THRESHOLDS = {
  gcPercent: 8,
  growth: 10,
  deriveRequestRatio: 0.2,
  exportWallS: 30,
  exportRssMb: 200,
};

const us = (value: number | null): string => (value === null ? 'n/a' : `${value} µs`);
const percent = (share: number): string => `${(share * 100).toFixed(1)} %`;

/** A crawl's CPU per document and where it went, from its --json. */
function perDocumentLines(figures: CpuPerDocument, runs: number): string[] {
  const spread = (values: number[], show: (value: number) => string) =>
    values.length > 1 ? `; runs ${show(Math.min(...values))} to ${show(Math.max(...values))}` : '';
  const share = figures.catalogueShare === null ? 'n/a (no catalogue)' : percent(figures.catalogueShare);
  return [
    `  CPU per document: ${us(figures.totalUs)} (user + system, every thread, start-up included; from its --json` +
      `${runs > 1 ? `, median of ${figures.runs} runs` : ''}${spread(figures.totalUsByRun, us)})`,
    `  by phase: crawl ${us(figures.crawlUs)}, catalogue + downloads ${us(figures.catalogueUs)}, rest of finalize ` +
      `${us(figures.finalizeRestUs)}, publish ${us(figures.publishUs)}, start-up and the rest ${us(figures.otherUs)}`,
    `  catalogue + downloads ÷ the rest of the crawl's CPU: ${share}${spread(figures.catalogueShareByRun, percent)}`,
  ];
}

function printProfile(profile: NonNullable<CpuScenario['profile']>): void {
  console.log(
    `\nProfile of one more crawl (node --cpu-prof, ${profile.threads} thread${profile.threads === 1 ? '' : 's'}, ` +
      `${profile.documents} documents): ${profile.busyMs} ms sampled busy, ${profile.idleMs} ms idle. The profiler ` +
      "samples the thread's time, not CPU time, and slows the crawl: read the shares, not the µs, as the figure.",
  );
  if (profile.keptIn !== null) console.log(`its .cpuprofile files are in ${profile.keptIn}`);
  const list = (title: string, items: ProfileItem[]) => {
    console.log(`\n${title}`);
    console.log(
      table(
        ['', 'ms', '% of busy', 'µs/document'],
        items.map((item) => [item.name, item.ms.toFixed(1), item.percent.toFixed(1), item.perDocumentUs.toFixed(1)]),
      ),
    );
  };
  list('top functions by self time (the function itself):', profile.bySelf);
  list('top functions by inclusive time (the function and what it calls):', profile.byInclusive);
  list('self time by module:', profile.byModule);
}

export function printCpu(result: CpuScenario, options: BenchOptions, where = ''): void {
  console.log(
    `\nCPU-bound${where}: ${result.documents} documents (sample API --records ${result.records} --page-size ` +
      `${result.pageSize}, no latency), concurrency ${result.concurrency}` +
      (options.runs > 1 ? `, median of ${options.runs} runs (walls in the JSON)` : ''),
  );
  console.log(runTable(result.runs, { header: 'CPU µs/doc', cell: cpuPerDocumentCell }));
  console.log(
    `sample API process: ${result.server.cpuS ?? 'n/a'} s CPU over the scenario, peak RSS ` +
      `${result.server.peakRssMb ?? 'n/a'} MB`,
  );
  for (const figures of result.perDocument) {
    console.log(`${figures.name}:`);
    for (const line of perDocumentLines(figures, options.runs)) console.log(line);
  }
  printThreads(result.threads);
  const difference = result.withoutCatalogue;
  if (difference !== null) {
    console.log(
      `crawls with --catalogue none, alternating: ${difference.withoutMs} ms of CPU against ${difference.withMs} ms ` +
        `with the catalogue (medians): the catalogue adds ${percent(difference.share)}`,
    );
  }
  console.log(
    `CPU per document of curl: ${us(result.curlCpuPerDocumentUs)}, of the bare Node loop: ` +
      `${us(result.nodeLoopCpuPerDocumentUs)} (fetching and writing alone, the anchors)`,
  );
  console.log(
    `fastest crawl's wall ÷ curl's: ${result.crawlToCurl ?? 'n/a (curl not run)'} (an anchor, not a target); ` +
      `its GC: ${result.crawlGcPercent ?? 'n/a'} % of its CPU (target ≤ ${THRESHOLDS.gcPercent} %: ` +
      `${verdict(result.crawlGcPercent === null ? null : result.crawlGcPercent <= THRESHOLDS.gcPercent)})`,
  );
  printNodeLoop(result);
  if (result.profile !== null) printProfile(result.profile);
}

/** The crawl's CPU per document on its main thread and on the others (V8's compiler and collector, libuv's pool). */
function printThreads(threads: CpuScenario['threads']): void {
  const split = (figures: ThreadSplit | null) =>
    figures === null ? 'n/a' : `${us(figures.mainUs)} on the main thread, ${us(figures.helpersUs)} on the others`;
  if (threads.withCatalogue === null) return;
  console.log(
    `CPU per document by thread (at exit, medians): ${split(threads.withCatalogue)}` +
      (threads.withoutCatalogue === null ? '' : `; with --catalogue none: ${split(threads.withoutCatalogue)}`),
  );
  console.log(
    "  (the others are V8's optimising compiler and its collector's helpers, and libuv's pool: compiling is a cost " +
      'of each run, not of each document; see the memory scenario for the CPU a document adds)',
  );
}

function cpuPerDocumentCell(run: RunFigures): string {
  return run.cpuS === null ? 'n/a' : String(Math.round((run.cpuS * 1e6) / Math.max(run.documents, 1)));
}

/** The bare Node loop against curl and the crawl against the loop, when the loop ran. */
function printNodeLoop(result: { nodeLoopToCurl: number | null; crawlToNodeLoop: number | null }): void {
  if (result.crawlToNodeLoop === null) return;
  console.log(
    `bare Node loop's wall ÷ curl's: ${result.nodeLoopToCurl ?? 'n/a (curl not run)'} (what a client in Node pays ` +
      `here); the crawl's ÷ the loop's: ${result.crawlToNodeLoop} (what the crawl's own work costs)`,
  );
}

export function printLatency(result: LatencyScenario): void {
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
  console.log(`crawl wall ÷ curl wall: ${result.crawlToCurl ?? 'n/a (curl not run)'} (target ≤ 1.05, in the table)`);
  if (result.withoutCatalogue !== null) {
    console.log(
      `the same with --catalogue none: ${result.withoutCatalogue.crawlToCurl ?? 'n/a'} (what the target would read ` +
        'were the catalogue built after the crawl, by cv-snapshot catalogue)',
    );
  }
  printNodeLoop(result);
}

const streamedCell = (run: RunFigures): string => {
  const figures = run as CommandFigures;
  if (figures.rssOfCrawl === undefined || figures.rssOfCrawl === null) return 'n/a';
  return `${percent(figures.rssOfCrawl)}${figures.streamed ? ' streamed' : ''}`;
};

export function printMemory(result: MemoryScenario): void {
  console.log(`\nMemory: peak RSS of the crawl process, concurrency ${result.concurrency}`);
  console.log(runTable(result.runs));
  console.log(
    `largest ÷ smallest: ${result.growth ?? 'n/a'} (target: same order of magnitude, < ${THRESHOLDS.growth}: ` +
      `${verdict(result.growth === null ? null : result.growth < THRESHOLDS.growth)})`,
  );
  printCpuBySize(result.cpuBySize);
  if (result.commands.length === 0) return;
  console.log(
    `\nOn the largest crawl's snapshot: each command's peak RSS against that crawl's ("streamed" when at most ` +
      `${percent(STREAMED_SHARE)} of it)`,
  );
  console.log(runTable(result.commands, { header: "of the crawl's RSS", cell: streamedCell }));
}

/** What a document adds to a crawl's CPU and what a run costs whatever its size, from two sizes. */
function printCpuBySize(figures: CpuBySize | null): void {
  if (figures === null) return;
  const [smaller, larger] = figures.documents;
  console.log(
    `crawl CPU from ${smaller} to ${larger} documents: ${us(figures.perDocumentUs)} per document added` +
      (figures.cataloguePerDocumentUs === null
        ? ''
        : ` (${us(figures.cataloguePerDocumentUs)} of it the catalogue and its downloads)`) +
      `, and ${figures.perRunMs} ms per run whatever its size (start-up, compiling, fixed pages)`,
  );
  if (figures.largerCatalogueShare !== null) {
    console.log(
      `catalogue + downloads ÷ the rest of the crawl's CPU at ${larger} documents: ` +
        percent(figures.largerCatalogueShare),
    );
  }
}

export function printCores(result: CoresScenario | null): void {
  if (result === null) return;
  console.log(
    `\nCores: ${result.documents} documents, no latency, concurrency ${result.concurrency}; the crawl and the sample ` +
      'API share the CPUs given (taskset)',
  );
  console.log(runTable(result.runs));
  console.log(`documents/s on every CPU ÷ on one (the fastest worker count): ${result.speedup ?? 'n/a'}`);
}

function printDeriveCpuBound(result: DeriveScenario['cpuBound'], runs: number): void {
  console.log(
    `\nno latency, ${result.documents} documents (--records ${result.records})` +
      (runs > 1 ? `, medians of ${runs} alternating pairs (walls in the JSON)` : ''),
  );
  console.log(
    runTable([result.full, result.derived], {
      header: 'CPU µs/doc (--json)',
      cell: (run) => us((run === result.full ? result.fullCpu : result.derivedCpu)?.totalUs ?? null),
    }),
  );
  const cost = result.cost;
  console.log(
    `crawl --derive's wall ÷ the full crawl's: ${result.wallRatio} (target ≤ 0.6, in the table); ` +
      `${result.derived.requests} requests, ${result.derived.derivedDocuments} documents derived` +
      (cost === null
        ? ''
        : `; a derived document costs ${us(cost.derivedUs)} of CPU, a fetched one ${us(cost.fetchedUs)} ` +
          `(× ${cost.ratio}; from the crawl phases)`),
  );
  const bare = result.withoutCatalogue;
  if (bare === null) return;
  console.log(
    `the same pair with --catalogue none: ${bare.derived.wallS} s ÷ ${bare.full.wallS} s = ${bare.wallRatio} (what ` +
      'the target would read were the catalogue built after the crawl, by cv-snapshot catalogue)',
  );
}

export function printDerive(result: DeriveScenario, options: BenchOptions): void {
  console.log(`\ncrawl --derive against a full crawl, concurrency ${result.concurrency}`);
  printDeriveCpuBound(result.cpuBound, options.runs);
  for (const size of result.sizes) {
    console.log(
      `\n${result.latencyMs} ms per response, --records ${size.records}: ${size.documents} documents ` +
        `(sample ${size.derived.sample})`,
    );
    console.log(
      runTable([size.full, size.derived], {
        header: 'requests',
        cell: (run) => String((run as RunFigures & { requests: number }).requests),
      }),
    );
    console.log(
      `requests: ${percent(size.requestRatio)} of the full crawl's (target ≤ ` +
        `${percent(THRESHOLDS.deriveRequestRatio)}: ${verdict(size.requestRatio <= THRESHOLDS.deriveRequestRatio)}); ` +
        `floor (root, lists, links-only relationships) ${percent(size.floorRatio)}; wall time ` +
        `${percent(size.wallRatio)}; ${size.derived.derivedDocuments} documents derived, ${size.derived.mismatches} ` +
        'samples differed',
    );
  }
}

export function printExport(result: ExportScenario): void {
  console.log(
    `\nExport: a snapshot of ${result.documents} documents (sample API --records ${result.records}), ` +
      `${result.snapshotRecords} records, in each format; the crawl that wrote it peaked at ` +
      `${result.crawlPeakRssMb ?? 'n/a'} MB`,
  );
  console.log(runTable(result.runs, { header: "of the crawl's RSS", cell: streamedCell }));
  const within = result.runs.every(
    (run) => run.wallS <= THRESHOLDS.exportWallS && run.peakRssMb !== null && run.peakRssMb <= THRESHOLDS.exportRssMb,
  );
  console.log(
    `every format under ${THRESHOLDS.exportWallS} s and ${THRESHOLDS.exportRssMb} MB peak RSS: ` + verdict(within),
  );
}

export function printTargets(rows: TargetRow[]): void {
  console.log('\nThe targets, each measured in this run (retired ones shown with their figure):');
  console.log(
    table(
      ['', 'target', 'measured', ''],
      rows.map((row) => [row.target, row.goal, row.measured ?? 'n/a', row.verdict]),
      [1, 2, 3],
    ),
  );
}
