/**
 * Command-line conventions (README "CLI reference"): help wins, usage errors on stderr, results alone on stdout.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { cp, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSnapshot } from '../../src/snapshot/create-snapshot.js';
import { startSampleApi } from '../../src/sample-api/index.js';
import { CLI, runCli, startCli, type CliResult } from '../helpers/cli.js';
import { getJson } from '../helpers/snapshot.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';

let suite: { dir: string; remove: () => Promise<void> };
let snapshot: string;

beforeAll(async () => {
  suite = await suiteDir();
  const api = await startSampleApi({ records: 2 });
  try {
    snapshot = path.join(suite.dir, 'snapshot');
    await createSnapshot({ rootUrl: api.rootUrl, out: snapshot });
  } finally {
    await api.close();
  }
});

afterAll(() => suite.remove());

/** Runs `node <script> ...args` (a bin link or dist/cli.js) with extra environment, in `cwd`. */
function runScript(
  script: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
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

describe('help and usage errors', () => {
  it('shows help and exits 0 when --help or -h comes with an unknown option or a bad value', async () => {
    const [bogus, badValue, help] = await Promise.all([
      runCli(['crawl', '--help', '--bogus']),
      runCli(['verify', 'a', 'b', 'c', '--concurrency', 'x', '-h']),
      runCli(['help', 'crawl']),
    ]);
    expect(bogus.code).toBe(0);
    expect(bogus.stderr).toBe('');
    expect(bogus.stdout).toMatch(/^Usage: cv-snapshot crawl <root-url> \[options\]\n/);
    expect(badValue.code).toBe(0);
    expect(badValue.stdout).toMatch(/^Usage: cv-snapshot verify \[dir\] \[options\]\n/);
    expect(help.stdout).toBe(bogus.stdout);
  });

  it('puts usage errors on stderr, with nothing on stdout', async () => {
    const [none, unknown] = await Promise.all([runCli([]), runCli(['crwal'])]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^Usage: cv-snapshot <command> \[options\]\n/);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^cv-snapshot: there is no command "crwal"\. Commands: crawl, verify, /);
  });

  it('keeps the options of crawl --help in their columns, a label too long for them on a line of its own', async () => {
    const { stdout } = await runCli(['crawl', '--help']);
    const lines = stdout.split('\n');
    const options = lines.slice(lines.indexOf('Options:') + 1, lines.indexOf('', lines.indexOf('Options:')));
    const column = options[0]!.indexOf('Directory to publish');
    expect(column).toBeGreaterThan('  --out <dir>'.length);
    const label = /^ {2}(-h, --help|--[a-z-]+( <[^>]+>)?)$/;
    for (const line of options) {
      expect(line.length).toBeLessThanOrEqual(100);
      if (label.test(line)) continue; // a label too long for the column, alone on its line
      // Text starts at the column, after a label that fits (or after nothing, on a continued line).
      expect(line.slice(0, column).trimEnd() === '' || label.test(line.slice(0, column).trimEnd()), line).toBe(true);
      expect(line[column - 1], line).toBe(' ');
      expect(line[column], line).not.toBe(' ');
    }
    const index = options.findIndex((line) => line.startsWith('  --collection-index <complete|first-page>'));
    expect(options[index]).toBe('  --collection-index <complete|first-page>');
    expect(options[index + 1]!.indexOf('What the bare collection URL holds')).toBe(column);
  });
});

describe('results on stdout, everything else on stderr', () => {
  it('serve prints only the URL on stdout, and its request log on stderr', async () => {
    const { child, firstLine } = await startCli(['serve', snapshot, '--port', '0']);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sms\/cv\/api\/v1\/$/);
      expect((await getJson(`${firstLine}units/`)).status).toBe(200);
      // The log line is written when the response ends; wait for it rather than for a time.
      while (!stderr.includes('GET /sms/cv/api/v1/units/ 200')) await once(child.stderr!, 'data');
    } finally {
      child.kill('SIGINT');
      await once(child, 'exit');
    }
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^GET \/sms\/cv\/api\/v1\/units\/ 200 \d+B /m);
  });
});
