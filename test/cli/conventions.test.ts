/**
 * Command-line conventions (docs/cli.md): help wins, usage errors on stderr, results alone on stdout,
 * --json for scripts also on failure, diff's "trouble" code, a port in use, and the demo's hint as the user ran it.
 * The rules of what goes where call `main` in this process (cli.test.ts runs the built command line for each kind of
 * outcome); serve, which runs until a signal, and the demo's hint, which depends on how the process was started, run
 * the built command line.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleApi } from '../../src/sample-api/index.js';
import { CLI, runCollecting, runMain, startCli, type CliResult } from '../helpers/cli.js';
import { getJson } from '../helpers/snapshot.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';
import { copySnapshot } from '../helpers/tiny-vocabulary.js';
import { crawlForTest } from '../helpers/crawl.js';

let suite: { dir: string; remove: () => Promise<void> };
let snapshot: string;

beforeAll(async () => {
  suite = await suiteDir();
  const api = await startSampleApi({ records: 2 });
  try {
    snapshot = path.join(suite.dir, 'snapshot');
    await crawlForTest(api.rootUrl, snapshot);
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
  return runCollecting(process.execPath, [script, ...args], options);
}

describe('help and usage errors', () => {
  it('shows help and exits 0 when --help or -h comes with an unknown option or a bad value', async () => {
    const [bogus, badValue, help] = await Promise.all([
      runMain(['crawl', '--help', '--bogus']),
      runMain(['verify', 'a', 'b', 'c', '--concurrency', 'x', '-h']),
      runMain(['help', 'crawl']),
    ]);
    expect(bogus.code).toBe(0);
    expect(bogus.stderr).toBe('');
    expect(bogus.stdout).toMatch(/^Usage: cv-snapshot crawl <root-url> \[options\]\n/);
    expect(badValue.code).toBe(0);
    expect(badValue.stdout).toMatch(/^Usage: cv-snapshot verify \[dir\] \[options\]\n/);
    expect(help.stdout).toBe(bogus.stdout);
  });

  it('puts usage errors on stderr, with nothing on stdout', async () => {
    const [none, unknown] = await Promise.all([runMain([]), runMain(['crwal'])]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^Usage: cv-snapshot <command> \[options\]\n/);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^cv-snapshot: there is no command "crwal"\. Commands: crawl, verify, /);
  });

  it('keeps the options of crawl --help in their columns, a label too long for them on a line of its own', async () => {
    const { stdout } = await runMain(['crawl', '--help']);
    const lines = stdout.split('\n');
    const options = lines.slice(lines.indexOf('Options:') + 1, lines.indexOf('', lines.indexOf('Options:')));
    const column = options[0]!.indexOf('Where to publish');
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
  it('serve prints the API root, then the catalogue for people, on stdout, and its request log on stderr', async () => {
    const { child, firstLine, rest } = await startCli(['serve', snapshot, '--port', '0']);
    let stdout = rest;
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sms\/cv\/api\/v1\/$/);
      expect((await getJson(`${firstLine}units/`)).status).toBe(200);
      while (!stdout.includes('\n')) await once(child.stdout!, 'data');
      // The second line names the catalogue's front page: a page for people, the snapshot's own index.html.
      const origin = new URL(firstLine).origin;
      expect(stdout).toBe(`Open the catalogue in a browser: ${origin}/\n`);
      const front = await fetch(`${origin}/`, { headers: { accept: 'text/html' } });
      expect(front.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await front.text()).toBe(await readFile(path.join(snapshot, 'index.html'), 'utf8'));
      // The log line is written when the response ends; wait for it rather than for a time.
      while (!stderr.includes('GET /sms/cv/api/v1/units/ 200')) await once(child.stderr!, 'data');
    } finally {
      child.kill('SIGINT');
      await once(child, 'exit');
    }
    expect(stdout).toBe(`Open the catalogue in a browser: ${new URL(firstLine).origin}/\n`);
    expect(stderr).toMatch(/^GET \/sms\/cv\/api\/v1\/units\/ 200 \d+B /m);
  });
});

describe('--json', () => {
  it('verify --json prints the outcome of a sound snapshot, and --quiet prints nothing', async () => {
    const [json, quiet] = await Promise.all([
      runMain(['verify', snapshot, '--json']),
      runMain(['verify', snapshot, '--quiet']),
    ]);
    expect(json.code).toBe(0);
    const sums = (await readFile(path.join(snapshot, '_cv-snapshot', 'SHA256SUMS'), 'utf8')).trim().split('\n');
    const outcome = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(outcome).toMatchObject({ snapshot, status: 'sound', exitCode: 0, files: sums.length });
    expect(outcome).toMatchObject({ problems: [], missing: [] });
    expect(outcome).toMatchObject({ documents: expect.any(Number), links: expect.any(Number), recordedErrors: 0 });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('');
  });

  it('verify --json lists the problems of a damaged snapshot (exit 3), and the error of a missing one', async () => {
    const damaged = path.join(await tempDir(), 'damaged');
    // Dereferenced: the snapshot is a link, and a copy of the link would change the original below.
    await copySnapshot(snapshot, damaged);
    await writeFile(path.join(damaged, 'sms', 'cv', 'api', 'v1', 'index.html'), '{"changed": true}\n');
    const [bad, missing] = await Promise.all([
      runMain(['verify', damaged, '--json']),
      runMain(['verify', path.join(damaged, 'nowhere'), '--json']),
    ]);
    expect(bad.code).toBe(3);
    const outcome = JSON.parse(bad.stdout) as { status: string; exitCode: number; problems: string[] };
    expect(outcome.status).toBe('problems');
    expect(outcome.exitCode).toBe(3);
    expect(outcome.problems.some((p) => p.includes('sms/cv/api/v1/index.html'))).toBe(true);
    expect(missing.code).toBe(1);
    const error = JSON.parse(missing.stdout) as { error: { message: string; exitCode: number } };
    expect(error.error.exitCode).toBe(1);
    expect(error.error.message).toContain('nowhere');
    expect(missing.stderr).toBe(`cv-snapshot verify: ${error.error.message}\n`);
  });

  it('pack --json describes the archive it wrote, or the error', async () => {
    const output = path.join(await tempDir(), 'release.tar.gz');
    const [packed, failed] = await Promise.all([
      runMain(['pack', snapshot, '--output', output, '--json']),
      runMain(['pack', path.join(suite.dir, 'nowhere'), '--json']),
    ]);
    expect(packed.stderr).toBe('');
    expect(packed.code).toBe(0);
    const bytes = await readFile(output);
    expect(JSON.parse(packed.stdout)).toEqual({
      archive: output,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: (await stat(output)).size,
      checksumFile: `${output}.sha256`,
      leftOut: [],
      partial: false,
    });
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toEqual({ error: { message: expect.stringContaining('nowhere'), exitCode: 1 } });
  });

  it('crawl --json prints the error as JSON when the crawl fails', async () => {
    const out = path.join(await tempDir(), 'out');
    const closed = 'http://127.0.0.1:9/sms/cv/api/v1/';
    const result = await runMain(['crawl', closed, '--out', out, '--retries', '0', '--quiet', '--json']);
    expect(result.code).toBe(1);
    const { error } = JSON.parse(result.stdout) as { error: { message: string; exitCode: number } };
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain(`${closed} could not be fetched`);
  });
});

describe('diff --exit-code', () => {
  it('exits 0 when the same, and 2 (not 1, which means "differ") when it cannot compare', async () => {
    const nowhere = path.join(suite.dir, 'nowhere');
    const [same, trouble, plain] = await Promise.all([
      runMain(['diff', snapshot, snapshot, '--exit-code']),
      runMain(['diff', nowhere, snapshot, '--exit-code']),
      runMain(['diff', nowhere, snapshot]),
    ]);
    expect(same.code).toBe(0);
    expect(trouble.code).toBe(2);
    expect(trouble.stdout).toBe('');
    expect(trouble.stderr).toMatch(/^cv-snapshot diff: .*nowhere/);
    // Without --exit-code a failure is 1, as for every other command.
    expect(plain.code).toBe(1);
  });
});

describe('a port in use', () => {
  it('sample-api says which port is taken and what to try, exit 1, no stack trace', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      const result = await runMain(['sample-api', '--port', String(port)]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `cv-snapshot sample-api: Port ${port} on 127.0.0.1 is in use by another program; choose another with --port ` +
          '(0 picks a free one).\n',
      );
    } finally {
      holder.close();
    }
  });
});

describe("the demo's closing hint", () => {
  it('names the bin when cv-snapshot was run from the PATH', async () => {
    const dir = await tempDir();
    const bin = path.join(dir, 'bin');
    await mkdir(bin);
    await symlink(CLI, path.join(bin, 'cv-snapshot'));
    const env = { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
    const args = ['demo', '--records', '1', '--quiet'];
    const result = await runScript(path.join(bin, 'cv-snapshot'), args, { cwd: dir, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Serve it like the live API: cv-snapshot serve out\n');
  }, 60_000);

  it('under npm start, names node and the paths from where npm was typed', async () => {
    const out = path.join(await tempDir(), 'out');
    const project = path.resolve(path.dirname(CLI), '..');
    const typedIn = path.join(project, 'test');
    const env = { npm_lifecycle_event: 'start', INIT_CWD: typedIn };
    const result = await runScript(CLI, ['demo', '--records', '1', '--quiet', '--out', out], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`Serve it like the live API: node ../dist/cli.js serve ${out}\n`);
  }, 60_000);
});
