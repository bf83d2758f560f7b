/**
 * The staging directory `<out>.staging` is the tool's own: a symbolic link, a file or a directory of someone else's
 * at that path is refused (never used, never removed, not even with --fresh), and what a resumed crawl reads back
 * from it (journal, tree) is checked first.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrawlStoppedError, OutputDirError } from '../../src/util/errors.js';
import { listFiles } from '../helpers/snapshot.js';
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

describe('a staging path that is not the tool’s', () => {
  it('refuses a symbolic link, a file, or a directory holding other files, even with --fresh', async () => {
    const elsewhere = path.join(top, 'elsewhere');
    await mkdir(elsewhere);
    await symlink(elsewhere, `${out}.staging`);
    await expect(crawlForTest(source.root, out, { fresh: true })).rejects.toThrow(
      `${out}.staging is a symbolic link, which cv-snapshot did not make`,
    );
    expect(await readlink(`${out}.staging`)).toBe(elsewhere);
    expect(await readdir(elsewhere)).toEqual([]);

    const file = path.join(top, 'file');
    await writeFile(`${file}.staging`, 'mine');
    await expect(crawlForTest(source.root, file)).rejects.toThrow('is not a directory, which cv-snapshot did not make');
    expect(await readFile(`${file}.staging`, 'utf8')).toBe('mine');

    const dir = path.join(top, 'dir');
    await mkdir(path.join(`${dir}.staging`, 'tree'), { recursive: true });
    await writeFile(path.join(`${dir}.staging`, 'thesis.tex'), 'years of work');
    const error = await crawlForTest(source.root, dir, { fresh: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputDirError);
    expect((error as Error).message).toContain('holds files cv-snapshot does not write (thesis.tex)');
    expect(await listFiles(`${dir}.staging`)).toEqual(['thesis.tex']);
    expect(source.requests).toEqual([]);
  });
});

describe('what --resume reads back', () => {
  /** A staging directory with work in it: a crawl interrupted while the record is held (root and list kept). */
  async function stoppedCrawl(): Promise<void> {
    const controller = new AbortController();
    const held = source.hold();
    const crawl = crawlForTest(source.root, out, { signal: controller.signal }).catch((e: unknown) => e);
    await held;
    controller.abort('SIGINT');
    source.release();
    await crawl;
    const kept = await listFiles(path.join(`${out}.staging`, 'tree'));
    expect(kept).toEqual(['api/index.html', 'api/units/page/1/index.html']);
  }

  it('refuses a journal line this tool does not write, naming the line', async () => {
    await stoppedCrawl();
    const journal = path.join(`${out}.staging`, 'journal.ndjson');
    const lines = (await readFile(journal, 'utf8')).split('\n');
    // A well-formed line of the wrong shape: a file path that leads out of the tree.
    const doc = JSON.parse(lines.find((line) => line.includes('"t":"doc"'))!) as { file: { path: string } };
    doc.file.path = '../../../etc/passwd';
    await writeFile(journal, `${lines[0]}\n${JSON.stringify(doc)}\n`);
    const error = await crawlForTest(source.root, out, { resume: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputDirError);
    expect((error as Error).message).toContain(`Line 2 of ${journal} is not an entry cv-snapshot writes`);
    // The schema says which member is wrong.
    expect((error as Error).message).toContain('(file.path: not a path inside the tree)');
    expect((error as Error).message).toContain('--fresh');

    // A finding under a rule no version of the report knows: a foreign line, refused the same way.
    const foreign = { url: source.root, pointer: '', rule: 'made.up', severity: 'error', message: 'x' };
    await writeFile(journal, `${lines[0]}\n${JSON.stringify({ t: 'finding', finding: foreign })}\n`);
    const refused = await crawlForTest(source.root, out, { resume: true }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OutputDirError);
    expect((refused as Error).message).toMatch(/^Line 2 of .* is not an entry cv-snapshot writes \(finding\.rule: /);

    await writeFile(journal, '{"t":"doc","url":"http://x/"}\n');
    await expect(crawlForTest(source.root, out, { resume: true })).rejects.toThrow(/Line 1 of .* is not an entry/);
    // --fresh discards it, as the message says.
    await crawlForTest(source.root, out, { fresh: true });
    expect(await termIn(out)).toBe('first');
  });

  it('refuses a named pipe planted in the staged tree instead of blocking on it', async () => {
    await stoppedCrawl();
    const pipe = path.join(`${out}.staging`, 'tree', 'api', 'units', 'page', '1', 'index.html');
    await rm(pipe);
    execFileSync('mkfifo', [pipe]);
    const error = await crawlForTest(source.root, out, { resume: true }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(CrawlStoppedError);
    expect(error).toBeInstanceOf(OutputDirError);
    expect((error as Error).message).toContain(`${pipe} is not a regular file inside the staging directory`);
    expect(existsSync(out)).toBe(false);
  });
});
