/** The command line contract (docs/cli.md): true help, exit codes, and the demo that `npm start` runs. */
import { once } from 'node:events';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCommands } from '../../src/cli/main.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { CLI, runCli, runMain, startCli } from '../helpers/cli.js';
import { getJson } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';

const COMMANDS = await loadCommands();

describe('cv-snapshot CLI', () => {
  it('lists the commands on stderr and exits 2 without one, with nothing on stdout', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    // The overview's summaries are written in main.ts, so that it loads no command: each must be the command's own.
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const command of COMMANDS) {
      expect(result.stderr).toMatch(new RegExp(`^  ${escape(command.name)} +${escape(command.summary)}$`, 'm'));
    }
  });

  it('prints help on stdout and exits 0 for -h, with nothing on stderr', async () => {
    const result = await runCli(['crawl', '-h']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Usage: cv-snapshot crawl <root-url> \[options\]\n/);
  });

  // Each command's help from main in this process (the test above runs the process once). --help itself is run in
  // conventions.test.ts (and wins over other errors there).
  it.each(COMMANDS.map((c) => c.name))('%s -h documents every option it accepts', async (name) => {
    const result = await runMain([name, '-h']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(new RegExp(`^Usage: cv-snapshot ${name}[ \\n]`));
    const command = COMMANDS.find((c) => c.name === name)!;
    for (const option of Object.values(command.options)) expect(result.stdout).toContain(`--${option.flag}`);
  });

  it('refuses an unknown option or a bad value with exit 2 and a sentence', async () => {
    const unknown = await runCli(['crawl', 'http://127.0.0.1:1/', '--concurency', '3']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/concurency/);
    const bad = await runCli(['crawl', 'http://127.0.0.1:1/', '--concurrency', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--concurrency takes a whole number between 1 and 256, not "many"');
    const choice = await runCli(['crawl', 'http://127.0.0.1:1/', '--links', 'weird']);
    expect(choice.stderr).toContain('--links takes one of relative, absolute, original');
    const missing = await runCli(['crawl']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('crawl needs <root-url>');
  });

  it('exits 1 with the URL when the source cannot be reached', async () => {
    const out = path.join(await tempDir(), 'out');
    const result = await runCli([
      'crawl',
      'http://127.0.0.1:9/sms/cv/api/v1/',
      '--out',
      out,
      '--retries',
      '0',
      '--quiet',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'http://127.0.0.1:9/sms/cv/api/v1/ could not be fetched: the connection was refused',
    );
  });

  it('verify exits 1 on a directory that is not a snapshot, and says what to give it', async () => {
    const result = await runCli(['verify', await tempDir()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^cv-snapshot verify: \S+ is not a cv-snapshot snapshot: it has no _cv-snapshot\//);
    expect(result.stderr).toContain('Give a directory that crawl wrote (--out)');
  });

  it('demo builds, verifies and summarises a snapshot', async () => {
    // Run two levels below a fresh temporary directory as `node <absolute path>/dist/cli.js`: the hint names the
    // script as it was given (absolute: it is at least three levels up from here, wherever the repository lies) and
    // the snapshot as the user would type it from here.
    const cwd = path.join(await tempDir(), 'deep', 'down');
    await mkdir(cwd, { recursive: true });
    const out = path.join(cwd, 'out');
    const result = await runCli(['demo', '--out', 'out', '--records', '3'], { cwd });
    expect(result.stderr).not.toMatch(/unexpected/);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^collection\s+records\s+pages\s+documents$/m);
    expect(result.stdout).toMatch(/^total\s+\d+\s+\d+\s+\d+$/m);
    expect(result.stderr).toContain('verify:');
    expect(result.stderr).toContain(`Serve it like the live API: node ${CLI} serve out\n`);
    const front = path.join(out, 'index.html');
    expect(result.stderr).toContain(
      `Browse it: open ${front} in a browser (no server needed), or, while serve runs, ` +
        'http://127.0.0.1:3000/sms/cv/api/v1/\n',
    );
    expect(await readFile(front, 'utf8')).toContain('<h1>Controlled vocabulary snapshot</h1>');
    expect((await verifySnapshot(out)).problems).toEqual([]);
  }, 60_000);

  it('sample-api prints its root URL first, serves it, and stops cleanly on SIGINT', async () => {
    const { child, firstLine } = await startCli(['sample-api', '--records', '2']);
    expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sms\/cv\/api\/v1\/$/);
    const root = await getJson(firstLine);
    expect(root.status).toBe(200);
    child.kill('SIGINT');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('crawl --json prints the summary as JSON', async () => {
    const { child, firstLine } = await startCli(['sample-api', '--records', '2']);
    try {
      const out = path.join(await tempDir(), 'out');
      const result = await runCli(['crawl', firstLine, '--out', out, '--json']);
      expect(result.code).toBe(0);
      const summary = JSON.parse(result.stdout) as {
        root: string;
        documents: number;
        collections: Record<string, unknown>;
      };
      expect(summary.root).toBe(firstLine);
      expect(summary.documents).toBeGreaterThan(35);
      expect(Object.keys(summary.collections)).toContain('units');
      // CPU time per phase (docs/performance.md): every phase that ran, the catalogue's within finalize.
      const { cpu } = JSON.parse(result.stdout) as {
        cpu: { ms: number; perDocumentUs: number; phases: Record<string, number> };
      };
      expect(Object.keys(cpu.phases)).toEqual(['crawl', 'catalogue', 'downloads', 'finalize', 'publish']);
      expect(cpu.phases.catalogue! + cpu.phases.downloads!).toBeLessThanOrEqual(cpu.phases.finalize!);
      expect(cpu.phases.downloads).toBeGreaterThan(0);
      expect(cpu.phases.crawl! + cpu.phases.finalize! + cpu.phases.publish!).toBeLessThanOrEqual(cpu.ms);
      expect(cpu.perDocumentUs).toBe(Math.round((cpu.ms * 1000) / summary.documents));

      const bare = await runCli(['crawl', firstLine, '--out', `${out}-bare`, '--json', '--catalogue', 'none']);
      const bareCpu = (JSON.parse(bare.stdout) as { cpu: { phases: Record<string, number> } }).cpu;
      expect(Object.keys(bareCpu.phases)).toEqual(['crawl', 'finalize', 'publish']);
    } finally {
      child.kill('SIGINT');
    }
  }, 60_000);
});
