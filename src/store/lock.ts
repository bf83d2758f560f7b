/**
 * The lock that keeps two crawls off one --out: `lock.json` in the staging directory, naming the crawl that holds
 * it (pid, host, start time) and a random token that only that crawl knows.
 *
 * It is taken atomically with its content: the lock is written to a file of its own and hard-linked to
 * `lock.json`, which fails when a lock is there. A lock whose crawl is gone (same host, and its pid no longer runs,
 * or runs a process started after the lock was taken, or the machine was restarted since) is stale and taken over;
 * a lock from another host cannot be checked and is left for the user to remove.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, lstat, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../util/clock.js';
import { CrawlLockedError, OutputDirError } from '../util/errors.js';

export const LOCK_FILE = 'lock.json';

export interface LockHolder {
  pid: number;
  host: string;
  /** The kernel's boot id where known (Linux): a lock from before a restart is stale whatever its pid. */
  bootId: string | null;
  /** ISO 8601, the real time the lock was taken. */
  startedAt: string;
  token: string;
}

/** Allowance between a process's start as /proc tells it (whole seconds) and the time its lock was taken. */
const START_SLACK_MS = 2000;

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

/** When process `pid` started, in ms since 1970, where the system tells (Linux); null when it cannot be known. */
function processStartMs(pid: number, clock: Clock): number | null {
  if (pid === process.pid) return clock.now().getTime() - process.uptime() * 1000;
  try {
    // Field 22 of /proc/<pid>/stat, after the parenthesised command name (which may hold spaces): clock ticks since
    // boot, at the 100 Hz that Linux reports to programs on every architecture.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(btime) ? btime * 1000 + ticks * 10 : null;
  } catch {
    return null;
  }
}

function parseHolder(text: string): LockHolder | null {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (
      Number.isSafeInteger(value.pid) &&
      typeof value.host === 'string' &&
      typeof value.startedAt === 'string' &&
      typeof value.token === 'string' &&
      (value.bootId === null || typeof value.bootId === 'string')
    ) {
      return value as LockHolder;
    }
  } catch {
    // Not a lock this tool wrote: reported below.
  }
  return null;
}

/** Whether the crawl that wrote `holder` is certainly gone. */
function isStale(holder: LockHolder, clock: Clock): boolean {
  if (holder.host !== os.hostname()) return false;
  const boot = bootId();
  if (boot !== null && holder.bootId !== null && boot !== holder.bootId) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  // The pid runs: the holder only if that process was already running when the lock was taken (pids are reused).
  const started = processStartMs(holder.pid, clock);
  const taken = Date.parse(holder.startedAt);
  return started !== null && Number.isFinite(taken) && started > taken + START_SLACK_MS;
}

function describeHolder(holder: LockHolder): string {
  return `pid ${holder.pid} on host ${holder.host}, started ${holder.startedAt}`;
}

function lockedError(holder: LockHolder, out: string, file: string): CrawlLockedError {
  const elsewhere = holder.host !== os.hostname();
  return new CrawlLockedError(
    `Another crawl (${describeHolder(holder)}) is writing ${out}; wait for it to end, or stop it, then run again. ` +
      (elsewhere
        ? `It runs on another machine, so this one cannot tell whether it still runs: if it does not, remove ${file}.`
        : '--fresh and --resume are refused while it runs, too.'),
  );
}

function isCode(error: unknown, ...codes: string[]): boolean {
  return codes.includes((error as NodeJS.ErrnoException).code ?? '');
}

export class StagingLock {
  private constructor(
    private readonly file: string,
    readonly holder: LockHolder,
    /** The staging directory's identity when the lock was taken: a directory put in its place is not ours. */
    private readonly dirIdentity: { dev: number; ino: number },
  ) {}

  /** Takes the lock of the staging directory `dir` (which exists), or throws naming the crawl that holds it. */
  static async acquire(dir: string, out: string, clock: Clock): Promise<StagingLock> {
    const file = path.join(dir, LOCK_FILE);
    const holder: LockHolder = {
      pid: process.pid,
      host: os.hostname(),
      bootId: bootId(),
      startedAt: clock.now().toISOString(),
      token: randomBytes(16).toString('hex'),
    };
    const text = `${JSON.stringify(holder)}\n`;
    const identity = await lstat(dir);
    // Each round either takes the lock, finds it held, or removes a stale one; a few rounds settle any race.
    for (let round = 0; round < 5; round++) {
      if (await StagingLock.link(dir, file, holder.token, text)) {
        return new StagingLock(file, holder, { dev: identity.dev, ino: identity.ino });
      }
      let found: string;
      try {
        found = await readFile(file, 'utf8');
      } catch (error) {
        if (isCode(error, 'ENOENT')) continue; // Released meanwhile.
        throw error;
      }
      const other = parseHolder(found);
      if (other === null) {
        throw new OutputDirError(
          `${file} is not a lock this tool wrote, so ${out} may be in use. If no crawl is running, remove it.`,
        );
      }
      if (!isStale(other, clock)) throw lockedError(other, out, file);
      // Move the stale lock aside; if what was moved is not what was judged stale, another crawl has just taken
      // the lock: put it back.
      const aside = `${file}.stale-${holder.token}`;
      try {
        await rename(file, aside);
      } catch (error) {
        if (isCode(error, 'ENOENT')) continue;
        throw error;
      }
      const moved = await readFile(aside, 'utf8');
      if (moved !== found) {
        await link(aside, file).catch(() => undefined);
        await unlink(aside);
        throw lockedError(parseHolder(moved) ?? other, out, file);
      }
      await unlink(aside);
    }
    throw new OutputDirError(`The lock ${file} keeps changing hands; another crawl of ${out} is starting. Try again.`);
  }

  /** Creates `file` with `text` in one step; false when a lock is already there. */
  private static async link(dir: string, file: string, token: string, text: string): Promise<boolean> {
    const own = path.join(dir, `${LOCK_FILE}.${token}.tmp`);
    await writeFile(own, text, { flag: 'wx' });
    try {
      await link(own, file);
      return true;
    } catch (error) {
      if (isCode(error, 'EEXIST')) return false;
      if (!isCode(error, 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS')) throw error;
      // No hard links on this file system: an exclusive create, then the content.
      try {
        await writeFile(file, text, { flag: 'wx' });
        return true;
      } catch (fallback) {
        if (isCode(fallback, 'EEXIST')) return false;
        throw fallback;
      }
    } finally {
      await unlink(own).catch(() => undefined);
    }
  }

  /** Throws unless the staging directory and its lock are still this crawl's: checked right before publishing. */
  async assertHeld(staging: string): Promise<void> {
    let reason: string | null = null;
    const stats = await lstat(staging).catch(() => null);
    if (stats === null || stats.dev !== this.dirIdentity.dev || stats.ino !== this.dirIdentity.ino) {
      reason = `${staging} was removed or replaced while this crawl ran`;
    } else {
      const found = parseHolder(await readFile(this.file, 'utf8').catch(() => ''));
      if (found === null) reason = `its lock ${this.file} was removed while this crawl ran`;
      else if (found.token !== this.holder.token) {
        reason = `another crawl (${describeHolder(found)}) took over ${staging} while this one ran`;
      }
    }
    if (reason !== null) throw new CrawlLockedError(`Nothing was published: ${reason}.`);
  }

  /** Removes the lock if it is still this crawl's. */
  async release(): Promise<void> {
    const found = parseHolder(await readFile(this.file, 'utf8').catch(() => ''));
    if (found?.token === this.holder.token) await unlink(this.file).catch(() => undefined);
  }
}
