/**
 * `npm run bench`: the performance figures of docs/performance.md, side by side with curl --parallel, a
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
import { coresScenario, type CoresScenario } from './cores-scenario.js';
import { cpuScenario, type CpuScenario } from './cpu-scenario.js';
import { deriveScenario, type DeriveScenario } from './derive-scenario.js';
import { exportScenario, type ExportScenario } from './export-scenario.js';
import { memoryScenario, type MemoryScenario } from './memory-scenario.js';
import {
  THRESHOLDS,
  printCores,
  printCpu,
  printDerive,
  printExport,
  printLatency,
  printMemory,
  printTargets,
} from './print.js';
import { latencyScenario, type BenchContext, type LatencyScenario } from './scenarios.js';
import { targetRows } from './targets.js';

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
    snapshots: new Map(),
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
          const disk = await cpuScenario({ ...context, base: diskBase, keepRuns: true }, false);
          results.disk = { ...disk, fileSystem };
          printCpu(results.disk, options, `, output on ${diskParent}: ${fileSystem ?? 'file system unknown'}`);
        } finally {
          if (!options.keep) rmSync(diskBase, { recursive: true, force: true });
        }
      }
      if (scenario === 'latency') printLatency((results.latency = await latencyScenario(context)));
      if (scenario === 'memory') printMemory((results.memory = await memoryScenario(context)));
      if (scenario === 'cores') printCores((results.cores = await coresScenario(context)));
      if (scenario === 'derive') printDerive((results.derive = await deriveScenario(context)), options);
      if (scenario === 'export') printExport((results.export = await exportScenario(context)));
    }
  } finally {
    if (!options.keep) rmSync(base, { recursive: true, force: true });
  }
  const targets = targetRows(results);
  printTargets(targets);
  if (options.json !== undefined) {
    const document = {
      date: new Date().toISOString(),
      machine,
      targets,
      thresholds: THRESHOLDS,
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
