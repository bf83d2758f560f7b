/**
 * An --out that an older release left with paths longer than the file system lets a call name: it
 * stored a long path in staging, then renamed the tree into the generations directory, whose longer name took the
 * path past 4,095 bytes, and `rm` failed on it ever after. A later crawl gets past such a tree: --fresh clears a
 * staging directory that holds one, publishing removes a generation being deleted that holds one, and a snapshot
 * that holds one is left alone (it cannot be checked for files of someone else's), with pack saying what to do.
 */
import { existsSync } from 'node:fs';
import { mkdir, realpath, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packSnapshot } from '../../src/archive/index.js';
import { removeTree } from '../../src/store/remove-tree.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { runMain } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTinySource, termIn, type TinySource } from '../helpers/tiny-source.js';
import { crawlForTest } from '../helpers/crawl.js';

let source: TinySource;
let top: string;
let out: string;
beforeEach(async () => {
  source = await startTinySource();
  top = await tempDir();
  out = path.join(top, 'mirror');
});
afterEach(() => source.close());

/**
 * Makes `dir` hold a tree whose deepest file lies more than 4,096 bytes below the file system's root: built where
 * its paths fit, then renamed below a 200-byte name inside `dir`, as the old publish renamed a staged tree.
 */
async function plantDeepTree(dir: string): Promise<void> {
  const built = path.join(top, 'b');
  const segments = Array.from({ length: Math.ceil((4000 - built.length) / 100) }, () => 'd'.repeat(99));
  const deepest = path.join(built, ...segments);
  await mkdir(deepest, { recursive: true });
  await writeFile(path.join(deepest, 'index.html'), '{}');
  await mkdir(dir, { recursive: true });
  await rename(built, path.join(dir, 'x'.repeat(200)));
  expect(Buffer.byteLength(path.join(dir, 'x'.repeat(200), ...segments, 'index.html'))).toBeGreaterThan(4096);
}

describe('a tree too deep to name, left by an older release', () => {
  it('in the staging directory: --fresh clears it and publishes', async () => {
    const controller = new AbortController();
    const held = source.hold();
    const crawl = crawlForTest(source.root, out, { signal: controller.signal }).catch((e: unknown) => e);
    await held;
    controller.abort('SIGINT');
    source.release();
    await crawl;
    await plantDeepTree(path.join(`${out}.staging`, 'tree', 'api', 'units'));

    await crawlForTest(source.root, out, { fresh: true });
    expect(existsSync(`${out}.staging`)).toBe(false);
    expect(await termIn(out)).toBe('first');
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });

  it('in a generation being deleted: the next publish removes it', async () => {
    await crawlForTest(source.root, out);
    const doomed = path.join(`${out}.cv-snapshot`, 'deleting-7');
    await plantDeepTree(doomed);

    source.term = 'second';
    await crawlForTest(source.root, out);
    expect(existsSync(doomed)).toBe(false);
    expect(await termIn(out)).toBe('second');
  });

  it('in the snapshot --out names: pack says what it is and what to do, and a new crawl gets past it', async () => {
    await crawlForTest(source.root, out);
    await plantDeepTree(path.join(await realpath(out), 'api'));
    const packed = await runMain(['pack', out, '--output', path.join(top, 'mirror.tar.gz')]);
    expect(packed.code).toBe(1);
    expect(packed.stderr).toMatch(/: its path is longer than the file system allows\. .*crawl the source again\.\n$/);

    source.term = 'second';
    await crawlForTest(source.root, out);
    expect(await termIn(out)).toBe('second');
    expect((await packSnapshot(out, path.join(top, 'mirror.tar.gz'))).bytes).toBeGreaterThan(0);
    // Once no longer kept for rollback, a generation that cannot be looked through is left alone, never deleted
    // blind, and the crawl goes on.
    source.term = 'third';
    await crawlForTest(source.root, out);
    expect(await termIn(out)).toBe('third');
    expect(existsSync(path.join(`${out}.cv-snapshot`, 'snapshot-1', 'api', 'x'.repeat(200)))).toBe(true);
    // The generation kept for rollback still holds the tree; the test's temporary directory cannot remove it.
    await removeTree(`${out}.cv-snapshot`);
  });
});
