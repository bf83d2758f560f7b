/**
 * Where a crawl publishes (docs/safety.md): --out is a symbolic link to a generation in
 * `<out>.cv-snapshot/`, swapped in one rename; what a user owns beside or inside --out is never deleted, moved or
 * overwritten; and a kill at any step of a publish leaves --out present and complete (but for the one-time move of
 * a directory --out, which the next run closes).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutputDirError, UsageError } from '../../src/util/errors.js';
import { startServe } from '../../src/serve/index.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { CLI, runMain } from '../helpers/cli.js';
import { treeHashes } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTinySource, termIn, type TinySource } from '../helpers/tiny-source.js';
import { crawlForTest } from '../helpers/crawl.js';

const DIST_CREATE_SNAPSHOT = path.resolve(path.dirname(CLI), 'pipeline', 'create-snapshot.js');

let source: TinySource;
let top: string;
beforeEach(async () => {
  source = await startTinySource();
  top = await tempDir();
});
afterEach(async () => {
  await source.close();
});

const crawlInto = (out: string, extra: Parameters<typeof crawlForTest>[2] = {}) =>
  crawlForTest(source.root, out, extra);

/** A snapshot as an earlier version of the tool published it: a real directory at `out`. */
async function directorySnapshot(out: string): Promise<void> {
  const made = path.join(await tempDir(), 'made');
  await crawlInto(made);
  await cp(made, out, { recursive: true, dereference: true });
}

async function sound(dir: string): Promise<void> {
  expect((await verifySnapshot(dir)).problems).toEqual([]);
}

describe('what a user owns beside --out', () => {
  it('never touches a <out>.previous it did not make, with or without an --out', async () => {
    const out = path.join(top, 'mirror');
    await mkdir(`${out}.previous`);
    await writeFile(path.join(`${out}.previous`, 'IMPORTANT.txt'), 'mine');

    await crawlInto(out);
    expect(await readFile(path.join(`${out}.previous`, 'IMPORTANT.txt'), 'utf8')).toBe('mine');
    expect(await termIn(out)).toBe('first');

    source.term = 'second';
    await crawlInto(out);
    expect(await readFile(path.join(`${out}.previous`, 'IMPORTANT.txt'), 'utf8')).toBe('mine');
    expect(await termIn(out)).toBe('second');
  });

  it('refuses a <out>.cv-snapshot it did not mark, and a symbolic link --out it did not make', async () => {
    const out = path.join(top, 'mirror');
    await mkdir(`${out}.cv-snapshot`);
    await writeFile(path.join(`${out}.cv-snapshot`, 'notes.txt'), 'mine');
    const refused = await crawlInto(out).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OutputDirError);
    expect((refused as Error).message).toContain(`${out}.cv-snapshot exists but was not made by cv-snapshot`);
    expect(await readdir(`${out}.cv-snapshot`)).toEqual(['notes.txt']);

    const elsewhere = path.join(top, 'elsewhere');
    await directorySnapshot(elsewhere);
    const before = await treeHashes(elsewhere);
    const linked = path.join(top, 'linked');
    await symlink(elsewhere, linked);
    const link = await crawlInto(linked).catch((e: unknown) => e);
    expect(link).toBeInstanceOf(OutputDirError);
    expect((link as Error).message).toContain(
      `${linked} is a symbolic link to ${elsewhere}, which cv-snapshot did not make`,
    );
    expect(await readlink(linked)).toBe(elsewhere);
    expect(await treeHashes(elsewhere)).toEqual(before);
    expect(existsSync(`${linked}.staging`)).toBe(false);
    expect(source.requests.filter((url) => url === '/api/')).toHaveLength(1); // the one crawl of directorySnapshot
  });
});

describe('files in --out that are not the snapshot’s', () => {
  it('refuses, before fetching anything, an --out directory holding files its SHA256SUMS does not list', async () => {
    const out = path.join(top, 'mirror');
    await directorySnapshot(out);
    await mkdir(path.join(out, '.git'));
    await writeFile(path.join(out, '.git', 'config'), '[core]');
    await writeFile(path.join(out, '.git', 'HEAD'), 'ref: refs/heads/main');
    await writeFile(path.join(out, 'CNAME'), 'cv.example.org');
    const before = await treeHashes(out);
    const requests = source.requests.length;

    const result = await runMain(['crawl', source.root, '--out', out, '--quiet']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${out} holds 3 files that are not part of a snapshot`);
    expect(result.stderr).toContain('such as .git/, CNAME');
    expect(result.stderr).toContain('Move those files elsewhere');
    expect(result.stderr).not.toContain('unexpected');
    expect(source.requests.length).toBe(requests);
    expect(await treeHashes(out)).toEqual(before);
    expect((await lstat(out)).isDirectory()).toBe(true);
    expect(existsSync(`${out}.staging`)).toBe(false);
    expect(existsSync(`${out}.cv-snapshot`)).toBe(false);
  });

  it('finds foreign files deep in the tree, and a symbolic link, by their paths', async () => {
    const out = path.join(top, 'mirror');
    await directorySnapshot(out);
    await writeFile(path.join(out, 'api', 'units', 'notes.md'), 'mine');
    await symlink('/etc/hostname', path.join(out, 'api', 'units', '1', 'link'));
    await mkdir(path.join(out, 'api', 'empty'));
    await expect(crawlInto(out)).rejects.toThrow(
      /holds 3 files that are not .* such as api\/empty\/, api\/units\/1\/link, api\/units\/notes\.md\./,
    );
  });

  it('refuses a .gitkeep alone, and a file added through the --out link', async () => {
    const kept = path.join(top, 'kept');
    await mkdir(kept);
    await writeFile(path.join(kept, '.gitkeep'), '');
    await expect(crawlInto(kept)).rejects.toThrow(/holds 1 file that is not part of a snapshot .*such as \.gitkeep/);
    expect(await readdir(kept)).toEqual(['.gitkeep']);

    const out = path.join(top, 'mirror');
    await crawlInto(out);
    await writeFile(path.join(out, 'CNAME'), 'cv.example.org');
    await expect(crawlInto(out)).rejects.toThrow(
      /mirror \(.*mirror\.cv-snapshot\/snapshot-1\) holds 1 file .*such as CNAME/,
    );
    expect(await readFile(path.join(out, 'CNAME'), 'utf8')).toBe('cv.example.org');
  });

  it('deletes only the generations it made and that hold nothing else; anything else there is kept', async () => {
    const out = path.join(top, 'mirror');
    const generations = `${out}.cv-snapshot`;
    await crawlInto(out);
    await crawlInto(out);
    expect(await readlink(out)).toBe('mirror.cv-snapshot/snapshot-2');
    await writeFile(path.join(generations, 'notes.txt'), 'mine');
    await writeFile(path.join(generations, 'snapshot-1', 'added-by-hand.txt'), 'mine too');

    // snapshot-1 would be deleted by this publish: refused, with the reason, before fetching.
    const requests = source.requests.length;
    await expect(crawlInto(out)).rejects.toThrow(
      /snapshot-1, an earlier snapshot that publishing deletes, holds 1 file/,
    );
    expect(source.requests.length).toBe(requests);

    await cp(path.join(generations, 'snapshot-1', 'added-by-hand.txt'), path.join(top, 'saved.txt'));
    await rm(path.join(generations, 'snapshot-1', 'added-by-hand.txt'));
    await crawlInto(out);
    expect((await readdir(generations)).sort()).toEqual(['cv-snapshot.json', 'notes.txt', 'snapshot-2', 'snapshot-3']);
    expect(await readlink(out)).toBe('mirror.cv-snapshot/snapshot-3');
  });
});

describe('files of an older generation edited by hand', () => {
  it('keep that generation: the crawl names the file and how to remove it, and deletes the next time', async () => {
    const out = path.join(top, 'mirror');
    const generations = `${out}.cv-snapshot`;
    await crawlInto(out);
    await crawlInto(out);
    // A hot fix on the served mirror, in the generation the next publish would delete.
    const edited = path.join(generations, 'snapshot-1', 'api', 'units', '1', 'index.html');
    const fixed = (await readFile(edited, 'utf8')).replace('first', 'fixed');
    await writeFile(edited, fixed);

    const result = await crawlInto(out);
    expect(await readlink(out)).toBe('mirror.cv-snapshot/snapshot-3');
    expect(await readFile(edited, 'utf8')).toBe(fixed);
    expect((await readdir(generations)).sort()).toEqual(['cv-snapshot.json', 'snapshot-1', 'snapshot-2', 'snapshot-3']);
    const dir = path.join(generations, 'snapshot-1');
    expect(result.kept).toEqual([
      `${dir}, an earlier snapshot, was kept: api/units/1/index.html was changed since cv-snapshot wrote it (not ` +
        'what its _cv-snapshot/SHA256SUMS says), and cv-snapshot never deletes what it did not write. Keep what you ' +
        `need of it elsewhere, then remove it with rm -r '${dir}'.`,
    ]);

    // The command line says so on stderr, and still exits 0.
    const cli = await runMain(['crawl', source.root, '--out', out, '--quiet']);
    expect(cli.code).toBe(0);
    expect(cli.stderr).toContain(`${dir}, an earlier snapshot, was kept: api/units/1/index.html was changed`);
    // So does the catalogue command, which publishes the same way.
    const catalogue = await runMain(['catalogue', out, '--out', out]);
    expect(catalogue.code, catalogue.stderr).toBe(0);
    expect(catalogue.stderr).toContain(`${dir}, an earlier snapshot, was kept: api/units/1/index.html was changed`);

    // Put back as the tool wrote it, the generation is deleted like any other.
    await writeFile(edited, fixed.replace('fixed', 'first'));
    await crawlInto(out);
    expect((await readdir(generations)).sort()).toEqual(['cv-snapshot.json', 'snapshot-5', 'snapshot-6']);
  });
});

describe('--out as a symbolic link to the current generation', () => {
  it('moves an earlier snapshot directory into the generations once, then swaps a relative link', async () => {
    const out = path.join(top, 'mirror');
    await directorySnapshot(out);
    const earlier = await treeHashes(out);

    source.term = 'second';
    const result = await crawlInto(out);
    expect(result.out).toBe(out);
    expect((await lstat(out)).isSymbolicLink()).toBe(true);
    expect(await readlink(out)).toBe('mirror.cv-snapshot/snapshot-2');
    expect(await termIn(out)).toBe('second');
    await sound(out);
    // The earlier snapshot, intact, kept for rollback.
    expect(await treeHashes(path.join(`${out}.cv-snapshot`, 'snapshot-1'))).toEqual(earlier);

    source.term = 'third';
    await crawlInto(out);
    expect(await readlink(out)).toBe('mirror.cv-snapshot/snapshot-3');
    expect((await readdir(`${out}.cv-snapshot`)).sort()).toEqual(['cv-snapshot.json', 'snapshot-2', 'snapshot-3']);
    expect(await termIn(path.join(`${out}.cv-snapshot`, 'snapshot-2'))).toBe('second');
    expect(existsSync(`${out}.staging`)).toBe(false);

    // The link is relative: the whole parent directory can be moved.
    const moved = path.join(await tempDir(), 'moved');
    await cp(top, moved, { recursive: true, verbatimSymlinks: true });
    expect(await termIn(path.join(moved, 'mirror'))).toBe('third');
  });

  it('after a rollback by hand (a link renamed over --out), keeps the generation rolled back to', async () => {
    const out = path.join(top, 'mirror');
    await crawlInto(out);
    source.term = 'second';
    await crawlInto(out);
    // docs/snapshot.md: ln -s … cv-mirror.new && mv -T cv-mirror.new cv-mirror, here with an absolute target.
    await symlink(path.join(`${out}.cv-snapshot`, 'snapshot-1'), `${out}.new`);
    await rename(`${out}.new`, out);
    expect(await termIn(out)).toBe('first');
    source.term = 'third';
    await crawlInto(out);
    expect(await readlink(out)).toBe('mirror.cv-snapshot/snapshot-3');
    expect((await readdir(`${out}.cv-snapshot`)).sort()).toEqual(['cv-snapshot.json', 'snapshot-1', 'snapshot-3']);
  });

  it('keeps the newest generation when the link was removed by hand, and makes a new link', async () => {
    const out = path.join(top, 'mirror');
    await crawlInto(out);
    await unlink(out);
    source.term = 'second';
    await crawlInto(out);
    expect(await readlink(out)).toBe('mirror.cv-snapshot/snapshot-2');
    expect(await termIn(path.join(`${out}.cv-snapshot`, 'snapshot-1'))).toBe('first');
  });

  it('takes an empty directory as --out', async () => {
    const out = path.join(top, 'empty');
    await mkdir(out);
    await crawlInto(out);
    expect(await termIn(out)).toBe('first');
    expect(await readdir(path.join(`${out}.cv-snapshot`, 'snapshot-1'))).toEqual([]);
  });

  it('pack, verify, diff and serve read an --out that is such a link', async () => {
    const out = path.join(top, 'mirror');
    await crawlInto(out);
    source.term = 'second';
    const other = path.join(top, 'other');
    await crawlInto(other);
    expect((await runMain(['verify', out])).code).toBe(0);
    const packed = await runMain(['pack', out]);
    expect(packed.stderr).toBe('');
    expect(packed.code).toBe(0);
    expect(existsSync(`${out}.tar.gz`)).toBe(true);
    const diff = await runMain(['diff', out, other, '--format', 'json']);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('second');
    const server = await startServe({ dir: out, port: 0 });
    try {
      const response = await fetch(`${server.url}units/1/`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('"first"');
    } finally {
      await server.close();
    }
  });
});

describe('--out paths that cannot be replaced', () => {
  it('refuses /, the current directory, and places inside a snapshot or the tool’s own directories', async () => {
    await expect(crawlInto('/')).rejects.toBeInstanceOf(UsageError);

    const cwd = process.cwd();
    const here = path.join(top, 'here');
    await mkdir(here);
    process.chdir(here);
    try {
      const refused = await crawlInto('.').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toContain('is the current directory or holds it');
    } finally {
      process.chdir(cwd);
    }
    expect(await readdir(top)).toEqual(['here']);

    const out = path.join(top, 'mirror');
    await crawlInto(out);
    await expect(crawlInto(path.join(out, 'inner'))).rejects.toThrow(
      /is inside the snapshot .*mirror\.cv-snapshot\/snapshot-1/,
    );
    await expect(crawlInto(path.join(`${out}.cv-snapshot`, 'inner'))).rejects.toThrow(
      /where cv-snapshot keeps published snapshots/,
    );
    expect(await readdir(`${out}.cv-snapshot`)).toEqual(['cv-snapshot.json', 'snapshot-1']);
    await sound(out);
  });
});

/**
 * Runs a crawl in a child process that kills itself (SIGKILL) right after its `killAfter`-th step of publishing
 * (0: never): a rename or symbolic link in the generations directory or at --out. Resolves with the steps made, and
 * `done` when the crawl finished first.
 */
async function crawlKilledAfter(out: string, killAfter: number): Promise<{ done: boolean; steps: string[] }> {
  const script = `
    import { createRequire, syncBuiltinESMExports } from 'node:module';
    import { writeSync } from 'node:fs';
    const fsp = createRequire(import.meta.url)('node:fs/promises');
    const out = ${JSON.stringify(out)};
    let steps = 0;
    for (const name of ['rename', 'symlink']) {
      const original = fsp[name];
      fsp[name] = async (...args) => {
        const result = await original(...args);
        if (!args.some((arg) => arg === out || String(arg).startsWith(out + '.cv-snapshot'))) return result;
        writeSync(2, name + ' ' + args.join(' ') + '\\n');
        if (++steps === ${killAfter}) process.kill(process.pid, 'SIGKILL');
        return result;
      };
    }
    syncBuiltinESMExports();
    const { createSnapshot } = await import(${JSON.stringify(DIST_CREATE_SNAPSHOT)});
    await createSnapshot({ rootUrl: ${JSON.stringify(source.root)}, out });
    writeSync(1, 'done');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, how) => resolve(how)));
  if (signal === null && stdout !== 'done') throw new Error(`the crawl failed: ${stderr}`);
  return { done: stdout === 'done', steps: stderr.split('\n').filter((line) => /^(rename|symlink) /.test(line)) };
}

/** A run after a kill: finishes what the kill left, publishing the source's current state. */
async function runAgain(out: string): Promise<void> {
  const again = await crawlInto(out).catch((e: unknown) => e);
  if (again instanceof Error) {
    expect(again.message).toContain('--resume to continue it');
    await crawlInto(out, { resume: true });
  }
}

/**
 * Counts the steps of a publish over a `prepare`d --out, then kills one publish after each step (all at once, in
 * parallel) and hands each result to `check` with the directory. Returns the number of steps.
 */
async function killAtEveryStep(
  prepare: (dir: string) => Promise<void>,
  check: (dir: string, steps: string[]) => Promise<void>,
): Promise<number> {
  const counted = path.join(await tempDir(), 'mirror');
  await prepare(counted);
  const { done, steps } = await crawlKilledAfter(counted, 0);
  expect(done).toBe(true);
  await Promise.all(
    steps.map(async (_step, i) => {
      const dir = path.join(await tempDir(), 'mirror');
      await prepare(dir);
      const killed = await crawlKilledAfter(dir, i + 1);
      expect(killed.done).toBe(false);
      await check(dir, killed.steps);
    }),
  );
  return steps.length;
}

describe('a signal once the crawl is done', () => {
  it('stops before publishing, keeps the finished work, and --resume publishes it', async () => {
    const out = path.join(top, 'mirror');
    await crawlInto(out);
    source.term = 'second';
    // The signal comes while the complete collections are built from the page files (finalize).
    const script = `
      import { createRequire, syncBuiltinESMExports } from 'node:module';
      const fs = createRequire(import.meta.url)('node:fs');
      const controller = new AbortController();
      const original = fs.readFileSync;
      fs.readFileSync = (file, ...rest) => {
        if (String(file).includes('/page/1/')) controller.abort('SIGINT');
        return original(file, ...rest);
      };
      syncBuiltinESMExports();
      const { createSnapshot } = await import(${JSON.stringify(DIST_CREATE_SNAPSHOT)});
      const rootUrl = ${JSON.stringify(source.root)};
      const options = { rootUrl, out: ${JSON.stringify(out)}, signal: controller.signal };
      const error = await createSnapshot(options).then(() => 'published', (e) => e.message);
      process.stdout.write(error);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    await new Promise((resolve) => child.on('close', resolve));
    expect(stdout).toMatch(
      /^Interrupted by SIGINT; nothing was published and the snapshot at .* is untouched\. The 3 documents/,
    );
    expect(await termIn(out)).toBe('first');
    const requests = source.requests.length;
    await crawlInto(out, { resume: true });
    // Nothing is fetched again but what checks that the source is in the state the crawl began with.
    expect(source.requests.slice(requests)).toEqual(['/api/', '/api/units/']);
    expect(await termIn(out)).toBe('second');
  });
});

describe('a kill at any step of a publish', () => {
  let old: TinySource;
  beforeEach(async () => {
    old = await startTinySource({ term: 'old' });
    source.term = 'new';
  });
  afterEach(() => old.close());

  it('leaves --out present and complete, the old snapshot or the new, when --out is already a link', async () => {
    const steps = await killAtEveryStep(
      (dir) => crawlForTest(old.root, dir).then(() => undefined),
      async (dir, made) => {
        // Present, and one of the two complete snapshots, whatever step the kill came after.
        expect((await lstat(dir)).isSymbolicLink(), made.at(-1)).toBe(true);
        expect(['old', 'new']).toContain(await termIn(dir));
        await sound(dir);
        await runAgain(dir);
        expect(await termIn(dir)).toBe('new');
        await sound(dir);
        const left = (await readdir(`${dir}.cv-snapshot`)).filter((name) => !/^snapshot-\d+$/.test(name));
        expect(left).toEqual(['cv-snapshot.json']);
        expect(existsSync(`${dir}.staging`)).toBe(false);
      },
    );
    // At least: the link made, the staged tree moved, the link renamed over --out.
    expect(steps).toBeGreaterThanOrEqual(3);
  }, 30_000);

  it('when --out is a directory, leaves it absent only after its one move, and the next run puts it back', async () => {
    let absent = 0;
    await killAtEveryStep(
      async (dir) => {
        const made = path.join(await tempDir(), 'made');
        await crawlForTest(old.root, made);
        await cp(made, dir, { recursive: true, dereference: true });
      },
      async (dir, steps) => {
        if (!existsSync(dir)) {
          absent += 1;
          // The one window: the directory moved into the generations, the link not yet renamed over it.
          expect(steps.at(-1)).toBe(`rename ${dir} ${dir}.cv-snapshot/snapshot-1`);
        } else {
          expect(['old', 'new']).toContain(await termIn(dir));
          await sound(dir);
        }
        await runAgain(dir);
        expect(await termIn(dir)).toBe('new');
        expect((await lstat(dir)).isSymbolicLink()).toBe(true);
        await sound(dir);
        expect(existsSync(`${dir}.staging`)).toBe(false);
      },
    );
    expect(absent).toBe(1);
  }, 30_000);
});
