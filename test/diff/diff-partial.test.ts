/**
 * diff on snapshots that are not complete or not plain: records a partial snapshot never fetched are "not
 * fetched", never announced as removed or added; numbers compare and print as the source wrote them; the tree is
 * read without following links or opening pipes; and JSON nested too deep is a sentence, not a crash. The
 * snapshots are crawls of a tiny purpose-built source.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  diffSnapshots,
  formatDiffJson,
  formatDiffMarkdown,
  snapshotDiffSchema,
  type SnapshotDiff,
} from '../../src/diff/index.js';
import { runCli, runMain } from '../helpers/cli.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { copySnapshot, records, rewriteFile, snapshotOf, type TinyRecord } from '../helpers/tiny-vocabulary.js';

let suite: { dir: string; remove: () => Promise<void> };
let complete: string;
let partial: string;
let numbersOld: string;
let numbersNew: string;
let copies = 0;

const units = records(5);
const things = records(2, 'thing ');
/** A collection both snapshots hold in full: its removal is real, partial or not. */
const parts = records(2, 'part ');

/** A term renamed to one with terminal escapes in it: the release notes show them, and do not send them. */
const plain: TinyRecord = { id: '4', term: 'plain' };
const red: TinyRecord = { id: '4', term: '\u001b[31mred\u001b[0m|' };

const withValues = (values: string[]): TinyRecord[] =>
  values.map((value, i) => ({ id: String(i + 1), term: `n${i + 1}`, value }));

beforeAll(async () => {
  suite = await suiteDir();
  const at = (name: string) => path.join(suite.dir, name);
  [complete, partial, numbersOld, numbersNew] = await Promise.all([
    snapshotOf({ collections: { units, things, parts } }, at('complete')),
    // Page 2 of units (records 3 and 4) and the whole of things fail; parts lost its record 2 for real.
    snapshotOf(
      { collections: { units, things, parts: parts.slice(0, 1) }, failing: ['units/?page[number]=2', 'things/'] },
      at('partial'),
      { allowPartial: true },
    ),
    snapshotOf({ collections: { units: [...withValues(['18446744073709551617', '1e400', '1.0']), plain] } }, at('o')),
    snapshotOf({ collections: { units: [...withValues(['18446744073709551618', '1e400', '1']), red] } }, at('n')),
  ]);
});
afterAll(() => suite.remove());

/** The diff in-process, as --format json prints it (read back through its schema), and that text. */
async function diffJson(a: string, b: string): Promise<{ diff: SnapshotDiff; stdout: string }> {
  const stdout = formatDiffJson(await diffSnapshots(a, b));
  return { diff: snapshotDiffSchema.parse(JSON.parse(stdout)), stdout };
}

/** The message diff fails with, in-process. */
async function diffFails(a: string, b: string): Promise<string> {
  const error = await diffSnapshots(a, b).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, 'diff should have failed').toBeInstanceOf(Error);
  return (error as Error).message;
}

const ids = (list: Array<{ id: string }>) => list.map((r) => r.id);

describe('diff of a partial snapshot', () => {
  it('lists the records it never fetched as not fetched, not as removed, in JSON', async () => {
    const { diff } = await diffJson(complete, partial);
    expect(diff.new.partial).toBe(true);
    const byName = new Map(diff.collections.map((c) => [c.name, c]));
    const unitsDiff = byName.get('units')!;
    expect(unitsDiff).toMatchObject({ change: 'changed', removed: [], added: [], records: { old: 5, new: 3 } });
    expect(ids(unitsDiff.notFetched)).toEqual(['3', '4']);
    expect(unitsDiff.missingPages).toEqual({ old: [], new: [`${diff.new.root}units/?page[number]=2`] });
    // things was not fetched at all: not a removed collection.
    expect(byName.get('things')).toMatchObject({ change: 'changed', removed: [], records: { old: 2, new: null } });
    expect(ids(byName.get('things')!.notFetched)).toEqual(['1', '2']);
    expect(ids(byName.get('parts')!.removed)).toEqual(['2']);
    expect(diff.summary.records).toEqual({ added: 0, removed: 1, changed: 0, notFetched: 4, unmatched: 0 });
    expect(diff.summary.collections).toMatchObject({ added: 0, removed: 0 });
    expect(diff.identical).toBe(false);

    const reverse = (await diffJson(partial, complete)).diff;
    expect(ids(reverse.collections.find((c) => c.name === 'units')!.notFetched)).toEqual(['3', '4']);
    expect(reverse.summary.records).toEqual({ added: 1, removed: 0, changed: 0, notFetched: 4, unmatched: 0 });
  });

  it('says so in the release notes, and lists no removals that did not happen', async () => {
    const { code, stdout } = await runMain(['diff', complete, partial]);
    expect(code).toBe(0);
    expect(stdout).toContain('0 added, 1 removed, 0 changed (0 status changes, 0 renamed), 4 not fetched.');
    expect(stdout).toContain('| units | 5 | 3 | 0 | 0 | 0 | 0 | 0 | 2 |');
    expect(stdout).not.toContain('Collection removed');
    const unitsSection = stdout.slice(stdout.indexOf('## units'));
    const page = `\`${(await diffJson(complete, partial)).diff.new.root}units/?page[number]=2\``;
    expect(unitsSection).toContain(
      `### Not fetched (2)\n\nThe new snapshot is partial: it lacks the page ${page} of this collection. These ` +
        'records are in the old snapshot only, and may be on the pages not fetched: whether they were removed ' +
        'cannot be told.\n',
    );
    expect(unitsSection).not.toContain('### Removed');
    expect(stdout.slice(stdout.indexOf('## parts'))).toContain('### Removed (1)');
  });
});

describe('diff and numbers', () => {
  it('compares numbers as the source wrote them: 18446744073709551617 → …618 is a change, 1.0 → 1 not', async () => {
    const { diff, stdout } = await diffJson(numbersOld, numbersNew);
    const unitsDiff = diff.collections.find((c) => c.name === 'units')!;
    const changed = unitsDiff.changed.map((c) => [c.id, c.attributes.map((a) => a.name)]);
    expect(changed).toEqual([
      ['1', ['value']],
      ['4', ['term']],
    ]);
    expect(stdout).toContain('"old": 18446744073709551617,\n');
    expect(stdout).toContain('"new": 18446744073709551618\n');
    const md = { stdout: formatDiffMarkdown(await diffSnapshots(numbersOld, numbersNew)) };
    expect(md.stdout).toContain('  - `value`: `18446744073709551617` → `18446744073709551618`\n');
    expect(md.stdout).toContain('- Unit 4: `plain` → `\\u001b[31mred\\u001b[0m|`\n');
    expect(md.stdout).toContain('- **\\u001b\\[31mred\\u001b\\[0m\\|** (Unit 4)\n');
    // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
    expect(md.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
});

describe('diff on trees that are not what crawl wrote', () => {
  const copy = () => copySnapshot(numbersOld, path.join(suite.dir, `copy-${++copies}`));
  const list = 'api/units/page/1/index.html';

  it('refuses a named pipe or a symbolic link where a list page is, without opening it', async () => {
    const [pipe, link, linkedDir] = await Promise.all([copy(), copy(), copy()]);
    await rm(path.join(pipe, list));
    await promisify(execFile)('mkfifo', [path.join(pipe, list)]);
    await rm(path.join(link, list));
    await symlink(path.join(numbersNew, list), path.join(link, list));
    await rm(path.join(linkedDir, 'api'), { recursive: true });
    await symlink(path.join(numbersNew, 'api'), path.join(linkedDir, 'api'));
    // The pipe in a process of its own: a diff that opened it would wait for a writer forever, holding a thread of
    // the process it runs in.
    const results = await Promise.all([
      runCli(['diff', numbersOld, pipe]),
      runMain(['diff', numbersOld, link]),
      runMain(['diff', numbersOld, linkedDir]),
    ]);
    expect(results[0].stderr).toBe(
      `cv-snapshot diff: ${pipe}: ${list} cannot be read: ${path.join(pipe, list)} is a named pipe, never opened. ` +
        `Run cv-snapshot verify ${pipe} to see what else is wrong with it.\n`,
    );
    expect(results[1].stderr).toContain(`${path.join(link, list)} is a symbolic link, never opened`);
    expect(results[2].stderr).toContain(`${path.join(linkedDir, 'api')} is a symbolic link, never opened`);
    expect(results.map((r) => [r.code, r.stdout])).toEqual([
      [1, ''],
      [1, ''],
      [1, ''],
    ]);
  });

  it('never reads outside the snapshot for a collection whose name in the manifest climbs out', async () => {
    const dir = await copy();
    const file = path.join(dir, '_cv-snapshot', 'manifest.json');
    const manifest = JSON.parse(await readFile(file, 'utf8')) as { collections: Record<string, unknown> };
    manifest.collections['../../outside'] = { records: 1, pages: 1, documents: 1 };
    await writeFile(file, JSON.stringify(manifest));
    // Where api/../../outside/index.html would lead: beside the copy.
    await mkdir(path.join(suite.dir, 'outside'), { recursive: true });
    await writeFile(path.join(suite.dir, 'outside', 'index.html'), '{"data":[{"type":"Secret","id":"1"}]}');
    expect(await diffFails(numbersOld, dir)).toBe(
      `${dir}: _cv-snapshot/manifest.json names collection "../../outside", whose list pages no file of a snapshot ` +
        `can hold. Run cv-snapshot verify ${dir} to see what else is wrong with it.`,
    );
  });

  it('says in a sentence that a list nested 100,000 deep cannot be read, nor a manifest counting 1e400', async () => {
    const deep = await copy();
    await rewriteFile(deep, list, `{"data":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, true);
    expect(await diffFails(numbersOld, deep)).toBe(
      `${deep}: ${list} cannot be read: it nests objects and arrays more than 256 levels deep. Run cv-snapshot ` +
        `verify ${deep} to see what else is wrong with it.`,
    );
    const manifest = path.join(deep, '_cv-snapshot', 'manifest.json');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('"documents": ', '"documents": 1e400, "x": '));
    expect(await diffFails(numbersOld, deep)).toMatch(/manifest\.json is not a cv-snapshot manifest \("documents": /);
  });
});
