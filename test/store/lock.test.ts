/**
 * One crawl at a time per --out (docs/safety.md): the lock in the staging directory, with two real
 * processes; stale locks after a crash; and the check, right before publishing, that the staging directory and its
 * lock are still the crawl's own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrawlLockedError } from '../../src/util/errors.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { CLI, runCli } from '../helpers/cli.js';
import { listFiles } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTinySource, termIn, type TinySource } from '../helpers/tiny-source.js';
import { crawlForTest } from '../helpers/crawl.js';

let source: TinySource;
let out: string;
beforeEach(async () => {
  source = await startTinySource();
  out = path.join(await tempDir(), 'mirror');
});
afterEach(() => source.close());

/** Starts `crawl` in a process of its own; resolves once it is waiting for the held record, its lock taken. */
type Exit = { code: number | null; stderr: string };

async function startHeldCrawl(): Promise<{ child: ChildProcess; exited: Promise<Exit> }> {
  const arrived = source.hold();
  const args = [CLI, 'crawl', source.root, '--out', out, '--quiet'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<Exit>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  await Promise.race([arrived, exited.then((r) => Promise.reject(new Error(`the crawl ended early: ${r.stderr}`)))]);
  return { child, exited };
}

function lockOf(dir: string): { pid: number; host: string; startedAt: string; token: string; bootId: string | null } {
  return JSON.parse(readFileSync(path.join(`${dir}.staging`, 'lock.json'), 'utf8')) as ReturnType<typeof lockOf>;
}

// Crawls in processes of their own, up to four at once: each loads the program, seconds on a loaded machine.
describe('two crawls on one --out', () => {
  it('a second crawl, even with --fresh or --resume, exits 1 naming the first, which publishes all', async () => {
    const first = await startHeldCrawl();
    const lock = lockOf(out);
    expect(lock.pid).toBe(first.child.pid);
    expect(lock.host).toBe(os.hostname());
    expect(lock.token).toMatch(/^[0-9a-f]{32}$/);
    const staged = await listFiles(`${out}.staging`);

    const attempts = [[], ['--fresh'], ['--resume']];
    const seconds = await Promise.all(
      attempts.map((extra) => runCli(['crawl', source.root, '--out', out, '--quiet', ...extra])),
    );
    for (const [i, second] of seconds.entries()) {
      expect(second.code, attempts[i]!.join(' ')).toBe(1);
      expect(second.stderr).toContain(
        `Another crawl (pid ${first.child.pid} on host ${os.hostname()}, started ${lock.startedAt}) is writing ${out};`,
      );
      expect(second.stderr).not.toContain('did not finish');
    }
    // The running crawl's work is untouched.
    expect(await listFiles(`${out}.staging`)).toEqual(staged);
    expect(lockOf(out)).toEqual(lock);

    source.release();
    const { code, stderr } = await first.exited;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect((await verifySnapshot(out)).problems).toEqual([]);
    expect(await termIn(out)).toBe('first');
    expect(existsSync(`${out}.staging`)).toBe(false);
  }, 120_000);

  it('a crawl killed with its lock held leaves a stale lock, which the next run takes over', async () => {
    const first = await startHeldCrawl();
    first.child.kill('SIGKILL');
    await first.exited;
    source.release();
    expect(lockOf(out).pid).toBe(first.child.pid);

    await expect(crawlForTest(source.root, out)).rejects.toThrow(/An earlier crawl into .* --resume to continue it/);
    const resumed = await runCli(['crawl', source.root, '--out', out, '--quiet', '--resume']);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(await termIn(out)).toBe('first');
  }, 120_000);

  it('a crawl whose lock was taken over while it ran publishes nothing', async () => {
    const first = await startHeldCrawl();
    const lock = lockOf(out);
    // Another crawl's lock, as it would be after a takeover: the first crawl must notice before publishing.
    const other = { ...lock, pid: process.pid, startedAt: new Date().toISOString(), token: 'f'.repeat(32) };
    await writeFile(path.join(`${out}.staging`, 'lock.json'), JSON.stringify(other));
    source.release();
    const { code, stderr } = await first.exited;
    expect(code).toBe(1);
    expect(stderr).toContain(`Nothing was published: another crawl (pid ${process.pid} on host ${os.hostname()}`);
    expect(stderr).not.toContain('--resume'); // the staging directory is the other crawl's now
    expect(existsSync(out)).toBe(false);
    expect(JSON.parse(await readFile(path.join(`${out}.staging`, 'lock.json'), 'utf8'))).toEqual(other);
  }, 120_000);
});

describe('locks that cannot be checked, or are certainly stale', () => {
  it('refuses a lock from another host, naming it and the lock file to remove', async () => {
    await crawlForTest(source.root, out);
    const staging = `${out}.staging`;
    await mkdir(staging);
    const lock = {
      pid: 4242,
      host: 'build-7.example.org',
      bootId: null,
      startedAt: '2025-03-01T10:00:00.000Z',
      token: 'a'.repeat(32),
    };
    await writeFile(path.join(staging, 'lock.json'), JSON.stringify(lock));
    const requests = source.requests.length;
    const error = await crawlForTest(source.root, out, { fresh: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrawlLockedError);
    expect((error as Error).message).toContain(
      `Another crawl (pid 4242 on host build-7.example.org, started 2025-03-01T10:00:00.000Z) is writing ${out}`,
    );
    expect((error as Error).message).toContain(`if it does not, remove ${path.join(staging, 'lock.json')}`);
    expect(source.requests.length).toBe(requests);
    expect(JSON.parse(await readFile(path.join(staging, 'lock.json'), 'utf8'))).toEqual(lock);
  });

  it('takes over a lock of this host whose pid now runs a younger process, or from before a restart', async () => {
    const staging = `${out}.staging`;
    await mkdir(staging);
    // This test's own process runs, but it started after this lock was taken: the pid was reused.
    const reused = {
      pid: process.pid,
      host: os.hostname(),
      bootId: null,
      startedAt: '2001-01-01T00:00:00.000Z',
      token: 'b'.repeat(32),
    };
    await writeFile(path.join(staging, 'lock.json'), JSON.stringify(reused));
    await crawlForTest(source.root, out);
    expect(await termIn(out)).toBe('first');

    await mkdir(staging);
    const rebooted = { ...reused, startedAt: new Date().toISOString(), bootId: 'not-this-boot' };
    await writeFile(path.join(staging, 'lock.json'), JSON.stringify(rebooted));
    await crawlForTest(source.root, out);
    expect(existsSync(staging)).toBe(false);
  });

  it('a second crawl in the same process waits its turn too', async () => {
    const arrived = source.hold();
    const first = crawlForTest(source.root, out);
    await arrived;
    await expect(crawlForTest(source.root, out, { fresh: true })).rejects.toBeInstanceOf(CrawlLockedError);
    source.release();
    await first;
    expect(await termIn(out)).toBe('first');
  });
});
