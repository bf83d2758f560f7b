/**
 * The bench's targets, each a ratio or a peak measured in one run, against what this bench measured: the table that
 * ends every bench (and the JSON's `targets`). A target whose scenario did not run is "not measured"; a memory
 * target measured on a snapshot well short of 200,000 documents (a small check) is "not at size". Targets no longer
 * held are still printed, as "retired", with their figure: CPU per document at 20,000 documents (V8 compiling the
 * code for each run dominates it at that size) and the "streamed" shares of the crawl's peak RSS (replaced by a
 * bound of 200 MB on every command).
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

export type Verdict = 'met' | 'MISSED' | 'not measured' | 'not at size' | 'retired';

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

/** A target no longer held: its figure, shown with the verdict "retired". */
function retired(result: TargetRow): TargetRow {
  return { ...result, target: `${result.target} (retired)`, verdict: 'retired' };
}

/** The catalogue and its downloads: CPU added to the crawl (÷ the rest of the crawl's), at a size. */
function catalogueRow(size: string, share: number | null, documents: number | undefined, extra = ''): TargetRow {
  const shown = share === null ? undefined : `+${percent(share)} at ${documents ?? '?'} documents${extra}`;
  return row(`catalogue and downloads: CPU added to the crawl, ${size}`, '≤ +15 %', share, (v) => v <= 0.15, shown);
}

export function targetRows(results: BenchResults): TargetRow[] {
  const perDocument = results.cpu?.perDocument[0];
  const commands = results.memory?.commands ?? [];
  const command = (name: string) => commands.filter((run) => run.name.startsWith(name));
  const largest = results.memory?.runs.reduce((a, b) => (b.documents > a.documents ? b : a));
  const share = perDocument?.catalogueShare ?? null;
  const difference = results.cpu?.withoutCatalogue;
  const bySize = results.memory?.cpuBySize ?? null;
  const derived = results.derive?.sizes.at(-1);
  const exports = results.export?.runs ?? [];
  const worstExport =
    exports.length === 0 ? undefined : exports.reduce((a, b) => ((b.peakRssMb ?? 0) > (a.peakRssMb ?? 0) ? b : a));
  const exportRow = rssRow(
    'export (the worst format): peak RSS',
    200,
    worstExport && { peakRssMb: worstExport.peakRssMb, documents: results.export!.documents },
  );
  return [
    catalogueRow(
      '20,000 documents',
      share,
      perDocument?.documents,
      difference ? ` (--catalogue none: +${percent(difference.share)} by difference)` : '',
    ),
    catalogueRow('200,000 documents', bySize?.largerCatalogueShare ?? null, bySize?.documents[1]),
    row(
      "crawl with its catalogue: wall ÷ curl's, 20 ms latency, 16 in flight",
      '≤ 1.05',
      results.latency?.crawlToCurl ?? null,
      (ratio) => ratio <= 1.05,
    ),
    row(
      "crawl --derive: wall ÷ the full crawl's, 20 ms latency",
      '≤ 0.40',
      derived?.wallRatio ?? null,
      (ratio) => ratio <= 0.4,
      derived ? `${derived.wallRatio} at ${derived.documents} documents` : undefined,
    ),
    rssRow('crawl (with its catalogue): peak RSS', 200, largest),
    rssRow('crawl --derive (with its catalogue): peak RSS', 200, command('crawl --derive')[0]),
    rssRow('verify: peak RSS', 200, command('verify')[0]),
    rssRow('catalogue (the command): peak RSS', 200, command('catalogue')[0]),
    exportRow,
    rssRow('diff of two snapshots: peak RSS', 300, command('diff')[0]),
    retired(
      row(
        'crawl: CPU per document (cpu scenario)',
        '≤ 140 µs',
        perDocument?.totalUs ?? null,
        (us) => us <= 140,
        perDocument ? `${perDocument.totalUs} µs at ${perDocument.documents} documents` : undefined,
      ),
    ),
    retired(
      row(
        "crawl --derive: wall ÷ the full crawl's, no latency",
        '≤ 0.6',
        results.derive?.cpuBound.wallRatio ?? null,
        (ratio) => ratio <= 0.6,
      ),
    ),
    retired(streamedRow('verify: peak RSS', command('verify'), largest?.documents)),
    retired(streamedRow('export (each format): peak RSS', exports, results.export?.documents)),
    retired(streamedRow('catalogue (the command): peak RSS', command('catalogue'), largest?.documents)),
  ];
}
