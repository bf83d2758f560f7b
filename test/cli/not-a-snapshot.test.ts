/**
 * Every command that reads a snapshot, given a path that does not exist or a folder that is not a snapshot (files of
 * its own, or a `_cv-snapshot` folder without a manifest), ends with exit 1 and one sentence that names the path and
 * what to give instead: never the system's error text (`ENOENT: no such file or directory, lstat …`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';

let missing: string;
let foreign: string;
let metaOnly: string;
let removeSuite: () => Promise<void>;

beforeAll(async () => {
  const { dir: base, remove } = await suiteDir();
  removeSuite = remove;
  missing = path.join(base, 'nowhere');
  foreign = path.join(base, 'photos');
  await mkdir(path.join(foreign, 'holiday'), { recursive: true });
  await writeFile(path.join(foreign, 'index.html'), '<!doctype html><title>Not a snapshot</title>\n');
  metaOnly = path.join(base, 'half');
  await mkdir(path.join(metaOnly, '_cv-snapshot'), { recursive: true });
  await writeFile(path.join(metaOnly, '_cv-snapshot', 'notes.txt'), 'nothing a crawl wrote\n');
});
afterAll(() => removeSuite());

/** What the system says when it cannot find a file, in any of its spellings. */
const SYSTEM_TEXT = /ENOENT|ENOTDIR|no such file or directory|lstat|realpath|scandir|errno|\bat .*\.js:\d+/;

/** Runs `command` on each unusable path and checks the sentence it ends with. */
async function expectSentences(args: (dir: string) => string[]): Promise<void> {
  const cases: [string, RegExp][] = [
    [missing, /does not exist\./],
    [foreign, /is not a cv-snapshot snapshot: it has no _cv-snapshot\/manifest\.json\./],
    [metaOnly, /is not a cv-snapshot snapshot: it has no _cv-snapshot\/manifest\.json\./],
  ];
  for (const [dir, says] of cases) {
    const result = await runMain(args(dir));
    expect(result.code, dir).toBe(1);
    expect(result.stdout, dir).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines, result.stderr).toHaveLength(1);
    expect(result.stderr).toContain(dir);
    expect(result.stderr).toMatch(says);
    expect(result.stderr).toMatch(/Give (a|the) (snapshot )?directory that/);
    expect(result.stderr).not.toMatch(SYSTEM_TEXT);
  }
}

describe('a path that is not a snapshot', () => {
  it('serve names it in a sentence', async () => {
    await expectSentences((dir) => ['serve', dir, '--port', '0']);
  });

  it('verify names it in a sentence', async () => {
    await expectSentences((dir) => ['verify', dir]);
  });

  it('diff names it in a sentence', async () => {
    await expectSentences((dir) => ['diff', dir, dir]);
  });

  it('pack names it in a sentence', async () => {
    const out = path.join(await tempDir(), 'x.tar.gz');
    await expectSentences((dir) => ['pack', dir, '--output', out]);
  });

  it('export names it in a sentence', async () => {
    const out = path.join(await tempDir(), 'x.ttl');
    await expectSentences((dir) => ['export', dir, '--format', 'turtle', '--output', out]);
  });

  it('catalogue names it in a sentence', async () => {
    const out = path.join(await tempDir(), 'with-catalogue');
    await expectSentences((dir) => ['catalogue', dir, '--out', out]);
  });
});
