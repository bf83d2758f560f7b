/**
 * The file system around --out: a missing parent, a file in the way, a read-only file system, a mount point, a full
 * disk. Each ends in a sentence naming the path, what happened and what to try, never a stack trace, and what can
 * be checked before fetching is.
 *
 * The read-only, mount-point and full-disk tests mount small tmpfs file systems, so they need root (as CI runs
 * them) and the `mount` command.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OutputDirError } from '../../src/util/errors.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { runMain } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { records, startTinySource, termIn, type TinySource } from '../helpers/tiny-source.js';
import { crawlForTest } from '../helpers/crawl.js';

let source: TinySource;
let top: string;
const mounted: string[] = [];

beforeEach(async () => {
  source = await startTinySource();
  top = await tempDir();
});
afterEach(async () => {
  // Before the temporary directory is removed (hooks run last-registered first).
  for (const dir of mounted.splice(0).reverse()) execFileSync('umount', [dir]);
  await source.close();
});

async function mountTmpfs(dir: string, options: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]);
  mounted.push(dir);
}

describe('the place of --out', () => {
  it('makes a missing parent directory', async () => {
    const out = path.join(top, 'a', 'b', 'mirror');
    await crawlForTest(source.root, out);
    expect(await termIn(out)).toBe('first');
  });

  it('says so when a file is in the way, and fetches nothing', async () => {
    await writeFile(path.join(top, 'notes.txt'), 'mine');
    const under = await runMain(['crawl', source.root, '--out', path.join(top, 'notes.txt', 'mirror'), '--quiet']);
    expect(under.code).toBe(1);
    expect(under.stderr).toContain(`The parent of --out, ${path.join(top, 'notes.txt')}, is a file, not a directory`);
    const crawlInto = (out: string) => crawlForTest(source.root, out).catch((e: unknown) => e);
    const deeper = await crawlInto(path.join(top, 'notes.txt', 'sub', 'mirror'));
    expect((deeper as Error).message).toMatch(/a part of that path is a file, not a directory\. Choose another --out/);
    const file = await crawlInto(path.join(top, 'notes.txt'));
    expect(file).toBeInstanceOf(OutputDirError);
    expect((file as Error).message).toContain(
      `${path.join(top, 'notes.txt')} is a file, not a directory, which cv-snapshot did not make`,
    );
    expect(source.requests).toEqual([]);
  });

  it('a read-only file system is named as such before fetching (mounts a tmpfs)', async () => {
    const readOnly = path.join(top, 'ro');
    await mountTmpfs(readOnly, 'ro,size=64k');
    const result = await runMain(['crawl', source.root, '--out', path.join(readOnly, 'mirror'), '--quiet']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Preparing --out ${path.join(readOnly, 'mirror')}: cannot create ${path.join(readOnly, 'mirror')}.staging: ` +
        'the file system is read-only. Choose an --out on a writable file system.',
    );
    expect(result.stderr).not.toContain('unexpected');
    expect(source.requests).toEqual([]);
  });

  it('an --out that is a mount point cannot be replaced: refused before fetching (mounts a tmpfs)', async () => {
    const out = path.join(top, 'mnt');
    await mountTmpfs(out, 'size=64k');
    const error = await crawlForTest(source.root, out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputDirError);
    expect((error as Error).message).toContain(`${out} is a mount point`);
    expect((error as Error).message).toContain(`such as ${path.join(out, 'cv-mirror')}`);
    expect(source.requests).toEqual([]);
    expect(existsSync(`${out}.staging`)).toBe(false);
  });
});

// Two crawls, one after the other: seconds, and several times that on a loaded machine.
describe('a full disk', () => {
  let many: TinySource;
  beforeAll(async () => {
    many = await startTinySource({ collections: { units: records(100) } });
  });
  afterAll(() => many.close());

  it('stops the crawl with a sentence, keeps the work, --resume continues with space (mounts a tmpfs)', async () => {
    const disk = path.join(top, 'small');
    // Room for the staging directory and some documents (each file takes a 4 KiB page), not for the whole crawl.
    await mountTmpfs(disk, 'size=192k');
    const out = path.join(disk, 'mirror');
    const full = await runMain(['crawl', many.root, '--out', out, '--quiet']);
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/the file system is full\. Free some space\./);
    expect(full.stderr).toMatch(
      new RegExp(
        `The \\d+ documents fetched so far are kept in ${out}\\.staging: once there is space again, run the same ` +
          'command with --resume',
      ),
    );
    expect(full.stderr).not.toContain('unexpected');

    execFileSync('mount', ['-o', 'remount,size=64m', disk]);
    const resumed = await runMain(['crawl', many.root, '--out', out, '--quiet', '--resume']);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/taken from the interrupted run/);
    expect((await verifySnapshot(out)).problems).toEqual([]);
  }, 120_000);
});
