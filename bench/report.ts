/** Figures of one measured run, and the plain-text tables the benchmark prints. */
import type { ChildRun } from './children.js';

export interface RunFigures {
  name: string;
  documents: number;
  wallS: number;
  docsPerS: number;
  /** user + system CPU time of the child; null when it could not be measured. */
  cpuS: number | null;
  userS: number | null;
  sysS: number | null;
  peakRssMb: number | null;
  /** Garbage collection as a share of the child's CPU time, in percent (Node children only). */
  gcPercent: number | null;
  /** CPU time of the child's main thread (Node children, from /proc); the rest is its helper threads'. */
  mainThreadS?: number | null;
  /** CPU time the sample API spent serving this run (from /proc); null elsewhere. */
  serverCpuS: number | null;
  /** Wall times of every repetition, when there were several (the figures above are the median's). */
  wallsS?: number[];
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

export function figures(name: string, documents: number, run: ChildRun, serverCpuMs: number | null): RunFigures {
  const wallS = run.wallMs / 1000;
  const cpuMs = run.userMs !== null && run.sysMs !== null ? run.userMs + run.sysMs : null;
  return {
    name,
    documents,
    wallS: round(wallS, 3),
    docsPerS: round(documents / wallS, 0),
    cpuS: cpuMs === null ? null : round(cpuMs / 1000, 2),
    userS: run.userMs === null ? null : round(run.userMs / 1000, 2),
    sysS: run.sysMs === null ? null : round(run.sysMs / 1000, 2),
    peakRssMb: run.maxRssKb === null ? null : round(run.maxRssKb / 1024, 1),
    gcPercent: run.gcMs === undefined || run.gcMs === null || !cpuMs ? null : round((run.gcMs / cpuMs) * 100, 1),
    serverCpuS: serverCpuMs === null ? null : round(serverCpuMs / 1000, 2),
    ...(run.mainThreadMs === undefined
      ? {}
      : { mainThreadS: run.mainThreadMs === null ? null : round(run.mainThreadMs / 1000, 2) }),
  };
}

/** The run with the median wall time (the lower of the two middle ones for an even count); all walls in `wallsS`. */
export function median(runs: RunFigures[]): RunFigures {
  const sorted = [...runs].sort((a, b) => a.wallS - b.wallS);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return runs.length === 1 ? middle : { ...middle, wallsS: runs.map((r) => r.wallS) };
}

const show = (value: number | null, digits: number): string => (value === null ? 'n/a' : value.toFixed(digits));

/** A plain-text table: the first column (and those in `left`) aligned left, the others (figures) right. */
export function table(header: string[], rows: string[][], left: number[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => (i === 0 || left.includes(i) ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function runTable(runs: RunFigures[], extra?: { header: string; cell(run: RunFigures): string }): string {
  const header = [
    '',
    'documents',
    'wall s',
    'docs/s',
    'CPU s (user+sys)',
    'GC % of CPU',
    'peak RSS MB',
    'server CPU s',
  ];
  if (extra) header.push(extra.header);
  return table(
    header,
    runs.map((run) => {
      const cpu = run.cpuS === null ? 'n/a' : `${show(run.cpuS, 2)} (${show(run.userS, 2)}+${show(run.sysS, 2)})`;
      const cells = [
        run.name,
        String(run.documents),
        show(run.wallS, 2),
        show(run.docsPerS, 0),
        cpu,
        show(run.gcPercent, 1),
        show(run.peakRssMb, 1),
        show(run.serverCpuS, 2),
      ];
      if (extra) cells.push(extra.cell(run));
      return cells;
    }),
  );
}

export function verdict(met: boolean | null): string {
  return met === null ? 'not measured' : met ? 'met' : 'MISSED';
}
