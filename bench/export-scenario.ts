/**
 * The export scenario (docs/vocabulary-export.md#streaming): a snapshot of the sample API crawled once at
 * `--export-records` (1100 gives the 202,951-document snapshot), then `cv-snapshot export` in each format, run as
 * users run it. Targets (issue 28): under 30 s and under 200 MB peak RSS each.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { executableSettings, runNode, startSampleApiProcess, type ChildRun } from './children.js';
import { figures, type RunFigures } from './report.js';
import type { BenchContext } from './scenarios.js';

export interface ExportScenario {
  /** Base records per collection of the sample API. */
  records: number;
  /** Documents the crawl fetched. */
  documents: number;
  /** Records the snapshot holds: each export's `documents` figure is this. */
  snapshotRecords: number;
  /** One run per format. */
  runs: RunFigures[];
}

const FORMATS = ['turtle', 'jsonld', 'csv'] as const;

function assertExited(what: string, run: ChildRun): void {
  if (run.code !== 0) throw new Error(`${what} failed (exit ${String(run.code)}): ${run.stderr.trim().slice(0, 2000)}`);
}

export async function exportScenario(context: BenchContext): Promise<ExportScenario> {
  const { exportRecords: records, pageSize, concurrency } = context.options;
  const executable = executableSettings(context.cli);
  const cli = (args: string[]) =>
    runNode([...executable.flags, context.cli, ...args], context.base, context.repo, executable.env);
  const dir = mkdtempSync(path.join(context.base, 'export-'));
  const snapshot = path.join(dir, 'snapshot');
  try {
    const api = await startSampleApiProcess(
      context.cli,
      ['--records', String(records), '--page-size', String(pageSize)],
      context.base,
    );
    try {
      context.log(`export: crawling the sample API with ${records} records per collection`);
      const crawl = await cli(['crawl', api.rootUrl, '--out', snapshot, '--concurrency', String(concurrency)]);
      assertExited('cv-snapshot crawl', crawl);
    } finally {
      await api.stop();
    }
    const manifest = JSON.parse(readFileSync(path.join(snapshot, '_cv-snapshot', 'manifest.json'), 'utf8')) as {
      documents: number;
      collections: Record<string, { records: number }>;
    };
    const snapshotRecords = Object.values(manifest.collections).reduce((n, c) => n + c.records, 0);
    const runs: RunFigures[] = [];
    for (const format of FORMATS) {
      context.log(`export: ${snapshotRecords} records as ${format}`);
      const output = path.join(dir, `export.${format}`);
      const run = await cli(['export', snapshot, '--format', format, '--output', output]);
      assertExited(`cv-snapshot export --format ${format}`, run);
      runs.push(figures(`export --format ${format}`, snapshotRecords, run, null));
    }
    return { records, documents: manifest.documents, snapshotRecords, runs };
  } finally {
    if (!context.options.keep) rmSync(dir, { recursive: true, force: true });
  }
}
