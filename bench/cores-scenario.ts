/**
 * The cores scenario: how the crawl's throughput scales with the CPUs it has (Linux, needs taskset).
 */
import os from 'node:os';
import { hasTaskset, pin, startSampleApiProcess } from './children.js';
import { median, type RunFigures } from './report.js';
import { crawlOnce, documentUrls, serverArgs, type BenchContext } from './scenarios.js';

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
