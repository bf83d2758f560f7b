/**
 * The bench's targets, each a ratio or a per-document figure measured in one run, against what this bench measured:
 * the table that ends every bench (and the JSON's `targets`). A target whose scenario did not run is "not measured";
 * a memory target measured on a snapshot well short of 200,000 documents (a small check) is "not at size".
 */
import type { CpuScenario } from './cpu-scenario.js';
import type { DeriveScenario } from './derive-scenario.js';
import type { ExportScenario } from './export-scenario.js';
import { STREAMED_SHARE, type CommandFigures, type MemoryScenario } from './memory-scenario.js';
import type { LatencyScenario } from './scenarios.js';

export interface BenchResults {
  cpu?: CpuScenario;
  latency?: LatencyScenario;
  memory?: MemoryScenario;
  derive?: DeriveScenario;
  export?: ExportScenario;
}

export type Verdict = 'met' | 'MISSED' | 'not measured' | 'not at size';

export interface TargetRow {
  target: string;
  goal: string;
  /** The figure, as printed; null when not measured. */
  measured: string | null;
  value: number | null;
  verdict: Verdict;
}

/** The memory targets hold at about 200,000 documents; below this, a run is a check of the bench, not a figure. */
const AT_SIZE = 190_000;

const percent = (share: number): string => `${(share * 100).toFixed(1)} %`;

function row(target: string, goal: string, value: number | null, met: (value: number) => boolean, shown?: string) {
  return {
    target,
    goal,
    value,
    measured: value === null ? null : (shown ?? String(value)),
    verdict: value === null ? 'not measured' : met(value) ? 'met' : 'MISSED',
  } satisfies TargetRow;
}

/** A peak RSS row, "not at size" below AT_SIZE documents. */
function rssRow(target: string, limitMb: number, run: { peakRssMb: number | null; documents: number } | undefined) {
  const value = run?.peakRssMb ?? null;
  const result: TargetRow = row(target, `≤ ${limitMb} MB`, value, (mb) => mb <= limitMb);
  if (value !== null) result.measured = `${value} MB at ${run!.documents} documents`;
  if (value !== null && run!.documents < AT_SIZE) result.verdict = 'not at size';
  return result;
}

/** A "streamed" row: the command's peak RSS ÷ that of the crawl which wrote the snapshot. */
function streamedRow(target: string, runs: CommandFigures[], documents: number | undefined): TargetRow {
  const shares = runs.flatMap((run) => (run.rssOfCrawl === null ? [] : [run.rssOfCrawl]));
  const worst = shares.length === 0 ? null : Math.max(...shares);
  const peak = Math.max(...runs.map((run) => run.peakRssMb ?? 0));
  const result: TargetRow = row(
    target,
    `streamed: ≤ ${percent(STREAMED_SHARE)} of the crawl's peak RSS`,
    worst,
    (share) => share <= STREAMED_SHARE,
    worst === null ? undefined : `${percent(worst)} (${peak} MB)`,
  );
  if (worst !== null && documents !== undefined && documents < AT_SIZE) result.verdict = 'not at size';
  return result;
}

export function targetRows(results: BenchResults): TargetRow[] {
  const perDocument = results.cpu?.perDocument[0];
  const commands = results.memory?.commands ?? [];
  const command = (name: string) => commands.filter((run) => run.name.startsWith(name));
  const largest = results.memory?.runs.reduce((a, b) => (b.documents > a.documents ? b : a));
  const share = perDocument?.catalogueShare ?? null;
  const difference = results.cpu?.withoutCatalogue;
  return [
    row(
      'crawl: CPU per document (cpu scenario)',
      '≤ 140 µs',
      perDocument?.totalUs ?? null,
      (us) => us <= 140,
      perDocument ? `${perDocument.totalUs} µs at ${perDocument.documents} documents` : undefined,
    ),
    row(
      "catalogue and downloads: CPU ÷ the rest of the crawl's",
      '≤ 10 %',
      share,
      (value) => value <= 0.1,
      share === null
        ? undefined
        : `${percent(share)}${difference ? ` (--catalogue none: ${percent(difference.share)} by difference)` : ''}`,
    ),
    row(
      "crawl --derive: wall ÷ the full crawl's, no latency",
      '≤ 0.6',
      results.derive?.cpuBound.wallRatio ?? null,
      (ratio) => ratio <= 0.6,
    ),
    row(
      "crawl: wall ÷ curl's, 20 ms latency",
      '≤ 1.05',
      results.latency?.crawlToCurl ?? null,
      (ratio) => ratio <= 1.05,
    ),
    rssRow('crawl: peak RSS', 200, largest),
    rssRow('crawl --derive: peak RSS', 200, command('crawl --derive')[0]),
    rssRow('diff of two snapshots: peak RSS', 300, command('diff')[0]),
    streamedRow('verify: peak RSS', command('verify'), largest?.documents),
    streamedRow('export (each format): peak RSS', results.export?.runs ?? [], results.export?.documents),
    streamedRow('catalogue (the command): peak RSS', command('catalogue'), largest?.documents),
  ];
}
