/**
 * verify, diff and pack stop on the first SIGINT or SIGTERM, exit 130 or 143, and leave nothing behind: no
 * temporary extraction directory, no temporary archive, an earlier archive as it was. Also when a second signal
 * makes the process exit at once. Real processes, real signals.
 *
 * To catch a command in the middle without timing: verify and diff read an archive from a named pipe that the test
 * stops feeding halfway (as from `<(curl …)`), so extraction waits for bytes that never come; pack packs a file
 * large enough to be seen half-written, and is stopped (SIGSTOP) there before the signals are sent, so that two
 * signals arrive together when it continues.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { once } from 'node:events';
import { constants } from 'node:fs';
import { open, readdir, readFile, stat, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packSnapshot } from '../../src/archive/index.js';
import { writeSnapshot } from '../archive/snapshot-fixture.js';
import { CLI } from '../helpers/cli.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';

let suite: { dir: string; remove: () => Promise<void> };
let snapshot: string;
let archive: Buffer;

beforeAll(async () => {
  suite = await suiteDir();
  snapshot = await writeSnapshot(path.join(suite.dir, 'snap'));
  archive = await readFile((await packSnapshot(snapshot)).output);
});
afterAll(() => suite.remove());

interface Running {
  child: ChildProcess;
  exit: Promise<{ code: number | null; stderr: string }>;
}

function start(args: string[], env: NodeJS.ProcessEnv = {}): Running {
  const options = { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'] };
  const child = spawn(process.execPath, [CLI, ...args], options);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  const exit = once(child, 'exit').then(([code]) => ({ code: code as number | null, stderr }));
  return { child, exit };
}

/** Waits (polling, no time limit of its own) until `ready` holds; the test's timeout bounds it. */
async function until(ready: () => Promise<boolean>): Promise<void> {
  while (!(await ready())) await sleep(20);
}

/**
 * Starts the command with `PIPE` in `args` replaced by a named pipe and TMPDIR of its own, feeds it half the archive
 * through the pipe, and waits until it is extracting. The pipe stays open: the rest never comes.
 */
async function extractingFromPipe(args: string[]): Promise<Running & { tmp: string; pipe: FileHandle }> {
  const tmp = await tempDir();
  const fifo = path.join(await tempDir(), 'archive.tar.gz');
  await promisify(execFile)('mkfifo', [fifo]);
  // Read and write: opening a pipe this way does not wait for a reader, and keeps a writer for the reader to wait on.
  const pipe = await open(fifo, constants.O_RDWR);
  const running = start(
    args.map((arg) => (arg === 'PIPE' ? fifo : arg)),
    { TMPDIR: tmp },
  );
  void pipe.write(archive.subarray(0, Math.floor(archive.length / 2)));
  await until(async () => {
    const [extraction] = await readdir(tmp);
    return extraction !== undefined && (await readdir(path.join(tmp, extraction))).length > 0;
  });
  return { ...running, tmp, pipe };
}

async function ended(running: Running & { pipe: FileHandle }): Promise<{ code: number | null; stderr: string }> {
  const result = await running.exit;
  await running.pipe.close();
  return result;
}

describe('verify and diff reading an archive', () => {
  it('verify stops on SIGINT with 130 and removes its extraction', async () => {
    const running = await extractingFromPipe(['verify', 'PIPE']);
    running.child.kill('SIGINT');
    const { code, stderr } = await ended(running);
    expect(stderr).toBe(
      'cv-snapshot verify: Interrupted by SIGINT. verify stopped before the end; it changed nothing.\n',
    );
    expect(code).toBe(130);
    expect(await readdir(running.tmp)).toEqual([]);
  });

  it('diff stops on SIGTERM with 143 and removes its extraction', async () => {
    const running = await extractingFromPipe(['diff', snapshot, 'PIPE', '--exit-code']);
    running.child.kill('SIGTERM');
    const { code, stderr } = await ended(running);
    expect(stderr).toBe('cv-snapshot diff: Interrupted by SIGTERM. diff stopped before the end; it printed nothing.\n');
    expect(code).toBe(143);
    expect(await readdir(running.tmp)).toEqual([]);
  });

  it('verify exits at once on a second signal, and still removes its extraction', async () => {
    const running = await extractingFromPipe(['verify', 'PIPE']);
    // Stopped, the process receives both signals before it can act on the first: the second exits at once.
    running.child.kill('SIGSTOP');
    running.child.kill('SIGINT');
    running.child.kill('SIGTERM');
    running.child.kill('SIGCONT');
    const { code, stderr } = await ended(running);
    // Nothing said: the process exited on the second signal (whichever came second), not after cleaning up.
    expect(stderr).toBe('');
    expect([130, 143]).toContain(code);
    expect(await readdir(running.tmp)).toEqual([]);
  });
});

describe('pack', () => {
  /** A snapshot with an earlier archive of it beside, then a large file added as a re-crawl would add it. */
  async function largeSnapshot(): Promise<{ dir: string; base: string; earlier: Buffer }> {
    const base = await tempDir();
    const dir = await writeSnapshot(path.join(base, 'snap'));
    const earlier = await readFile((await packSnapshot(dir)).output);
    // Random bytes do not compress: at gzip level 9 they take long enough to be caught half-written.
    const large = randomBytes(24 << 20);
    await writeFile(path.join(dir, 'sms', 'large'), large);
    const sums = path.join(dir, '_cv-snapshot', 'SHA256SUMS');
    const line = `${createHash('sha256').update(large).digest('hex')}  sms/large\n`;
    await writeFile(sums, `${await readFile(sums, 'utf8')}${line}`);
    return { dir, base, earlier };
  }

  /** Runs pack on `dir` and stops it (SIGSTOP) once its temporary archive holds something. */
  async function packStoppedHalfway(dir: string, base: string): Promise<Running> {
    const running = start(['pack', dir]);
    const temp = async () =>
      (await readdir(base)).find((name) => name.endsWith('.tmp') && name.startsWith('.snap.tar.gz.'));
    await until(async () => {
      const name = await temp();
      const size = name === undefined ? 0 : ((await stat(path.join(base, name)).catch(() => null))?.size ?? 0);
      return size > 0;
    });
    running.child.kill('SIGSTOP');
    // Still being written: pack had not finished when it was stopped.
    expect(await temp()).toBeDefined();
    return running;
  }

  it('stops on SIGINT with 130, leaving the earlier archive as it was and no temporary file', async () => {
    const { dir, base, earlier } = await largeSnapshot();
    const running = await packStoppedHalfway(dir, base);
    running.child.kill('SIGINT');
    running.child.kill('SIGCONT');
    const { code, stderr } = await running.exit;
    expect(stderr).toBe(
      'cv-snapshot pack: Interrupted by SIGINT. pack stopped before the end: no archive was written, and an earlier ' +
        'one is as it was.\n',
    );
    expect(code).toBe(130);
    expect((await readdir(base)).sort()).toEqual(['snap', 'snap.tar.gz', 'snap.tar.gz.sha256']);
    expect((await readFile(path.join(base, 'snap.tar.gz'))).equals(earlier)).toBe(true);
  }, 30_000);

  it('exits at once on a second signal, and still removes its temporary files', async () => {
    const { dir, base, earlier } = await largeSnapshot();
    const running = await packStoppedHalfway(dir, base);
    running.child.kill('SIGINT');
    running.child.kill('SIGTERM');
    running.child.kill('SIGCONT');
    const { code, stderr } = await running.exit;
    expect(stderr).toBe('');
    expect([130, 143]).toContain(code);
    expect((await readdir(base)).sort()).toEqual(['snap', 'snap.tar.gz', 'snap.tar.gz.sha256']);
    expect((await readFile(path.join(base, 'snap.tar.gz'))).equals(earlier)).toBe(true);
  }, 30_000);
});
