/**
 * The export scenario (docs/vocabulary-export.md#streaming): a snapshot of the sample API crawled once at
 * `--export-records` (1100 gives the 202,951-document snapshot; the memory scenario's largest snapshot when it is that
 * size), then `cv-snapshot export` in each format, run as users run it. Targets: under 30 s and under
 * 200 MB peak RSS each (docs/performance.md).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startSampleApiProcess } from './children.js';
import { againstCrawl, runCli, type CommandFigures } from './memory-scenario.js';
import { figures } from './report.js';
import { assertExited, type BenchContext } from './scenarios.js';

export interface ExportScenario {
  /** Base records per collection of the sample API. */
  records: number;
  /** Documents the crawl fetched. */
  documents: number;
  /** Records the snapshot holds: each export's `documents` figure is this. */
  snapshotRecords: number;
  /** Peak RSS of the crawl that wrote the snapshot (the memory scenario's, when it was shared). */
  crawlPeakRssMb: number | null;
  /** One run per format, its peak RSS against the crawl's. */
  runs: CommandFigures[];
}

const FORMATS = ['turtle', 'jsonld', 'csv'] as const;

export async function exportScenario(context: BenchContext): Promise<ExportScenario> {
  const { exportRecords: records, pageSize, concurrency } = context.options;
  const dir = mkdtempSync(path.join(context.base, 'export-'));
  try {
    // The memory scenario's largest snapshot when it is this size; else a crawl of our own.
    let shared = context.snapshots.get(records);
    if (shared === undefined) {
      const snapshot = path.join(dir, 'snapshot');
      const api = await startSampleApiProcess(
        context.cli,
        ['--records', String(records), '--page-size', String(pageSize)],
        context.base,
      );
      try {
        context.log(`export: crawling the sample API with ${records} records per collection`);
        const crawl = await runCli(context, [
          'crawl',
          api.rootUrl,
          '--out',
          snapshot,
          '--concurrency',
          String(concurrency),
        ]);
        assertExited('cv-snapshot crawl', crawl);
        const documents = (
          JSON.parse(readFileSync(path.join(snapshot, '_cv-snapshot', 'manifest.json'), 'utf8')) as {
            documents: number;
          }
        ).documents;
        shared = { dir: snapshot, documents, crawlPeakRssMb: figures('crawl', documents, crawl, null).peakRssMb };
      } finally {
        await api.stop();
      }
    }
    const manifest = JSON.parse(readFileSync(path.join(shared.dir, '_cv-snapshot', 'manifest.json'), 'utf8')) as {
      collections: Record<string, { records: number }>;
    };
    const snapshotRecords = Object.values(manifest.collections).reduce((n, c) => n + c.records, 0);
    const runs: CommandFigures[] = [];
    for (const format of FORMATS) {
      context.log(`export: ${snapshotRecords} records as ${format}`);
      const output = path.join(dir, `export.${format}`);
      const run = await runCli(context, ['export', shared.dir, '--format', format, '--output', output]);
      assertExited(`cv-snapshot export --format ${format}`, run);
      runs.push(againstCrawl(figures(`export --format ${format}`, snapshotRecords, run, null), shared.crawlPeakRssMb));
      rmSync(output, { force: true });
    }
    return { records, documents: shared.documents, snapshotRecords, crawlPeakRssMb: shared.crawlPeakRssMb, runs };
  } finally {
    if (!context.options.keep) rmSync(dir, { recursive: true, force: true });
  }
}
