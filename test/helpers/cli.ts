/** Runs the built command line (`node dist/cli.js`) as users and CI do, or its `main` in this process. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/cli.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` with its stdout and stderr collected, and its exit code or signal. */
export function runCollecting(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  return runCollecting(process.execPath, [CLI, ...args], options);
}

/**
 * Runs `main` in this process with `args`, as dist/cli.js would, and returns what it wrote and the exit code the
 * process would get. For the many cases of one command-line rule: a spawn costs half a second, and cli.test.ts
 * already runs the built command line for each kind of outcome.
 */
export async function runMain(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const collect = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        append(chunk.toString());
        done();
      },
    });
  // A worker thread starts from the built document-worker.js, which src/ has not: an in-process crawl keeps to this
  // thread, as the command line does on a machine of two cores, whatever the cores of the machine running the suite.
  const threads = args[0] === 'crawl' && !args.some((arg) => arg.startsWith('--workers')) ? ['--workers', '0'] : [];
  const code = await main([...args, ...threads], {
    stdout: collect((text) => (stdout += text)),
    stderr: collect((text) => (stderr += text)),
    env: { ...process.env, ...options.env },
    signal: new AbortController().signal,
  });
  return { code, signal: null, stdout, stderr };
}

/** Starts the CLI; resolves with its first line on stdout, and what came after it in the same read (`rest`). */
export function startCli(args: string[]): Promise<{ child: ChildProcess; firstLine: string; rest: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let buffer = '';
    const onData = (d: Buffer) => {
      buffer += d.toString();
      const newline = buffer.indexOf('\n');
      if (newline >= 0) {
        child.stdout.off('data', onData);
        resolve({ child, firstLine: buffer.slice(0, newline), rest: buffer.slice(newline + 1) });
      }
    };
    child.stdout.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`exited with ${code} before printing a line`)));
  });
}
