/**
 * Running the benchmark's child processes and measuring them: wall time from spawn to exit, and the child's own
 * CPU time and peak RSS. Node children report theirs through usage-preload.ts; curl is measured by GNU time when
 * it is installed (both are getrusage figures). The sample API runs as a child of its own, so that it never shares
 * an event loop with what it serves, and its CPU time per run is read from /proc where there is one.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const PRELOAD = fileURLToPath(new URL('./usage-preload.js', import.meta.url));
const GNU_TIME = '/usr/bin/time';

export interface Usage {
  wallMs: number;
  /** CPU time of the child (user + system); null when it cannot be measured here. */
  userMs: number | null;
  sysMs: number | null;
  maxRssKb: number | null;
  /** Time the child's garbage collections took (Node children only); null elsewhere. */
  gcMs?: number | null;
  /** CPU time of the child's main thread (Node children, where /proc has it); null elsewhere. */
  mainThreadMs?: number | null;
}

/** What usage-preload.ts writes. */
interface NodeUsage {
  userMs: number;
  sysMs: number;
  maxRssKb: number;
  gcMs: number;
  mainThreadMs: number | null;
}

export interface ChildRun extends Usage {
  code: number | null;
  stdout: string;
  stderr: string;
}

let usageFiles = 0;
function usageFile(scratch: string): string {
  usageFiles += 1;
  return path.join(scratch, `usage-${process.pid}-${usageFiles}.json`);
}

function collect(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  return { stdout: () => Buffer.concat(out).toString('utf8'), stderr: () => Buffer.concat(err).toString('utf8') };
}

async function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const [code] = (await once(child, 'close')) as [number | null];
  return code;
}

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * What the first line of the executable (`#!/usr/bin/env -S NAME=value … node …`) gives Node, which `cv-snapshot`
 * runs with when installed: variables of its environment and its options. `node dist/cli.js` does not read that
 * line, so the benchmark gives them as the executable would.
 */
export function executableSettings(cli: string): { env: Record<string, string>; flags: string[] } {
  const first = readFileSync(cli, 'utf8').split('\n', 1)[0] ?? '';
  const match = /^#!\/usr\/bin\/env -S (.*)$/.exec(first);
  const words = match === null ? [] : match[1]!.trim().split(/\s+/);
  const node = words.indexOf('node');
  const env: Record<string, string> = {};
  for (const word of words.slice(0, Math.max(0, node))) {
    const at = word.indexOf('=');
    if (at > 0) env[word.slice(0, at)] = word.slice(at + 1);
  }
  return { env, flags: node === -1 ? [] : words.slice(node + 1) };
}

/** Runs `node <args>` with the usage preload; `scratch` holds the usage file. */
export async function runNode(
  args: string[],
  scratch: string,
  cwd: string,
  env: Record<string, string> = {},
  /** Run on these CPUs only (taskset's list, such as `0`). */
  cpus?: string,
): Promise<ChildRun> {
  const file = usageFile(scratch);
  const started = performance.now();
  const node = [process.execPath, '--import', PRELOAD, ...args];
  // taskset starts node in its own place (exec): the usage measured is node's.
  const [command, ...rest] = cpus === undefined ? node : ['taskset', '-c', cpus, ...node];
  const child = spawn(command!, rest, {
    cwd,
    env: { ...process.env, ...env, BENCH_USAGE_FILE: file, BENCH_CLOCK_TICKS: String(ticksPerSecond()) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child);
  const code = await exitCode(child);
  const wallMs = performance.now() - started;
  const usage = readJson<NodeUsage>(file);
  return {
    wallMs,
    userMs: usage?.userMs ?? null,
    sysMs: usage?.sysMs ?? null,
    maxRssKb: usage?.maxRssKb ?? null,
    gcMs: usage?.gcMs ?? null,
    mainThreadMs: usage?.mainThreadMs ?? null,
    code,
    stdout: output.stdout(),
    stderr: output.stderr(),
  };
}

let gnuTime: boolean | undefined;
/** Whether GNU time (with -f and -o) is installed. */
export function hasGnuTime(): boolean {
  if (gnuTime === undefined) {
    const probe = existsSync(GNU_TIME) ? spawnSync(GNU_TIME, ['--version'], { encoding: 'utf8' }) : undefined;
    gnuTime = probe !== undefined && /GNU/.test(`${probe.stdout ?? ''}${probe.stderr ?? ''}`);
  }
  return gnuTime;
}

/** Whether `taskset` (util-linux) can pin processes to CPUs here. */
export function hasTaskset(): boolean {
  return spawnSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' }).status === 0;
}

/** Pins every thread of a running process to `cpus` (taskset's list). */
export function pin(pid: number, cpus: string): void {
  const result = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`taskset could not pin process ${pid}: ${result.stderr.trim()}`);
}

/** The first line of `curl --version`, or null when curl is not installed. */
export function curlVersion(): string | null {
  const probe = spawnSync('curl', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) return null;
  return probe.stdout.split('\n')[0] ?? null;
}

/** Runs an executable; CPU time and peak RSS come from GNU time when it is installed. */
export async function runProgram(command: string, args: string[], scratch: string, cwd: string): Promise<ChildRun> {
  const timed = hasGnuTime();
  const file = usageFile(scratch);
  const started = performance.now();
  const child = timed
    ? spawn(GNU_TIME, ['-f', '%U %S %M', '-o', file, command, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collect(child);
  const code = await exitCode(child);
  const wallMs = performance.now() - started;
  let usage: Usage = { wallMs, userMs: null, sysMs: null, maxRssKb: null };
  if (timed) {
    // GNU time writes "Command exited with non-zero status n" first when the command fails: read the last line.
    const lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
    rmSync(file, { force: true });
    const [user, sys, rss] = (lines.at(-1) ?? '').split(' ').map(Number);
    if (user !== undefined && sys !== undefined && rss !== undefined && [user, sys, rss].every(Number.isFinite)) {
      usage = { wallMs, userMs: user * 1000, sysMs: sys * 1000, maxRssKb: rss };
    }
  }
  return { ...usage, code, stdout: output.stdout(), stderr: output.stderr() };
}

let clockTicks: number | undefined;
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    const probe = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    const value = Number(probe.stdout?.trim());
    clockTicks = Number.isFinite(value) && value > 0 ? value : 100;
  }
  return clockTicks;
}

/** CPU time (user + system) a running process has used so far, from /proc; null where there is no /proc. */
export function cpuMsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond() : null;
  } catch {
    return null;
  }
}

export interface SampleApiProcess {
  rootUrl: string;
  pid: number;
  /** Stops the server; returns its own usage over its whole life. */
  stop(): Promise<Usage>;
}

/** Starts `cv-snapshot sample-api` in its own process and waits for its root URL (its first line on stdout). */
export async function startSampleApiProcess(cli: string, args: string[], scratch: string): Promise<SampleApiProcess> {
  const file = usageFile(scratch);
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', PRELOAD, cli, 'sample-api', '--port', '0', ...args], {
    env: { ...process.env, BENCH_USAGE_FILE: file },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const lines = createInterface({ input: child.stdout });
  const rootUrl = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) =>
      reject(
        new Error(
          `the sample API exited (${String(code)}) before printing its URL: ${Buffer.concat(stderr).toString()}`,
        ),
      ),
    );
  });
  lines.close();
  child.stdout.resume();
  let stopping: Promise<Usage> | undefined;
  const stop = async (): Promise<Usage> => {
    const exited = exitCode(child);
    child.kill('SIGINT');
    await exited;
    const usage = readJson<NodeUsage>(file);
    return {
      wallMs: performance.now() - started,
      userMs: usage?.userMs ?? null,
      sysMs: usage?.sysMs ?? null,
      maxRssKb: usage?.maxRssKb ?? null,
    };
  };
  return {
    rootUrl,
    pid: child.pid!,
    stop: () => (stopping ??= stop()),
  };
}
