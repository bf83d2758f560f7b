/**
 * `cv-snapshot catalogue`: an existing snapshot (a directory or an archive) published with the catalogue built in,
 * byte for byte what crawl would have written; an unsound input and a foreign --out are refused with nothing changed;
 * "in place" keeps the input whole as the previous snapshot.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packSnapshot } from '../../src/archive/pack.js';
import { OutputDirError } from '../../src/util/errors.js';
import { addCatalogue } from '../../src/pipeline/add-catalogue.js';
import { UnsoundSnapshotError } from '../../src/util/errors.js';
import { startSampleApi } from '../../src/sample-api/index.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { runMain } from '../helpers/cli.js';
import { readJson, treeHashes } from '../helpers/snapshot.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { copySnapshot, rewriteFile } from '../helpers/tiny-vocabulary.js';
import { crawlForTest } from '../helpers/crawl.js';

describe('cv-snapshot catalogue', () => {
  let base: string;
  let remove: () => Promise<void>;
  /** The same source crawled with the catalogue and without it, at the same recorded time. */
  let withPages: string;
  let without: string;
  let expected: Record<string, string>;

  beforeAll(async () => {
    ({ dir: base, remove } = await suiteDir());
    const api = await startSampleApi({ records: 2, seed: 5 });
    try {
      withPages = path.join(base, 'with');
      without = path.join(base, 'without');
      await crawlForTest(api.rootUrl, withPages);
      await crawlForTest(api.rootUrl, without, { catalogue: 'none' });
    } finally {
      await api.close();
    }
    expected = await treeHashes(withPages);
  });
  afterAll(() => remove());

  it('gives a snapshot made without a catalogue the very files crawl writes with one', async () => {
    const before = await treeHashes(without);
    expect(Object.keys(before).some((file) => file.startsWith('_catalogue/'))).toBe(false);
    const out = path.join(base, 'from-dir');
    const result = await addCatalogue({ input: without, out });
    // Manifest (options.catalogue) and SHA256SUMS included.
    expect(await treeHashes(out)).toEqual(expected);
    expect(result.pages).toBeGreaterThan(50);
    expect((await verifySnapshot(out)).problems).toEqual([]);
    expect(await treeHashes(without)).toEqual(before);
  });

  it('reads an archive made by pack', async () => {
    const archive = path.join(base, 'without.tar.gz');
    await packSnapshot(without, { output: archive });
    const out = path.join(base, 'from-archive');
    await addCatalogue({ input: archive, out });
    expect(await treeHashes(out)).toEqual(expected);
  });

  it('replaces the pages of a catalogue the input had, leaving none of the old ones', async () => {
    const input = await copySnapshot(withPages, path.join(base, 'old-pages'));
    // An older catalogue page that this version would not write, listed in SHA256SUMS as the crawl would.
    await mkdir(path.join(input, '_catalogue', 'retired'));
    await writeFile(path.join(input, '_catalogue', 'retired', 'page-1.html'), 'x');
    const sums = path.join(input, '_cv-snapshot', 'SHA256SUMS');
    const retired = `${createHash('sha256').update('x').digest('hex')}  _catalogue/retired/page-1.html\n`;
    await writeFile(sums, (await readFile(sums, 'utf8')) + retired);
    expect((await verifySnapshot(input)).problems).toEqual([]);
    const out = path.join(base, 'from-old-pages');
    await addCatalogue({ input, out });
    expect(await treeHashes(out)).toEqual(expected);
  });

  it('refuses a snapshot that differs from its SHA256SUMS or lacks a file, naming it; publishes nothing', async () => {
    const input = await copySnapshot(without, path.join(base, 'changed'));
    await rewriteFile(input, 'sms/cv/api/v1/units/1/index.html', '{"data":null}', false);
    const out = path.join(base, 'from-changed');
    await expect(addCatalogue({ input, out })).rejects.toThrow(UnsoundSnapshotError);
    await expect(addCatalogue({ input, out })).rejects.toThrow(/sms\/cv\/api\/v1\/units\/1\/index\.html.*verify/);
    await expect(readlink(out)).rejects.toThrow(/ENOENT/);
    // A file SHA256SUMS lists that is not there is missing, in those words.
    const lacking = await copySnapshot(without, path.join(base, 'lacking'));
    await rm(path.join(lacking, 'sms', 'cv', 'api', 'v1', 'units', '1', 'index.html'));
    const run = await runMain(['catalogue', lacking, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `cv-snapshot catalogue: sms/cv/api/v1/units/1/index.html in ${lacking} is missing. Run cv-snapshot verify ` +
        `${lacking} to see every problem;`,
    );
    await expect(readlink(out)).rejects.toThrow(/ENOENT/);
  });

  it('never reads through a directory that is a symbolic link, however many files before it were copied', async () => {
    const input = await copySnapshot(without, path.join(base, 'linked-dir'));
    // The same files, checksums and all, in the last record's directory, after its neighbours' files were copied:
    // only the link is wrong.
    const units = path.join(input, 'sms', 'cv', 'api', 'v1', 'units');
    const entries = await readdir(units, { withFileTypes: true });
    const id = entries.filter((entry) => entry.isDirectory() && /^\d+$/.test(entry.name)).map((entry) => entry.name);
    expect(id.length).toBeGreaterThan(1);
    const last = id.sort().at(-1)!;
    const elsewhere = path.join(base, 'units-elsewhere');
    await rename(path.join(units, last), elsewhere);
    await symlink(elsewhere, path.join(units, last), 'dir');
    const out = path.join(base, 'from-linked-dir');
    const refused = addCatalogue({ input, out });
    await expect(refused).rejects.toThrow(UnsoundSnapshotError);
    const named = new RegExp(`units/${last}/\\S+ in .* cannot be read \\(.*units/${last} is a`);
    await expect(refused).rejects.toThrow(named);
    await expect(readlink(out)).rejects.toThrow(/ENOENT/);
  });

  it('refuses a manifest no crawl writes (absolute links, no base URL) in a sentence; publishes nothing', async () => {
    const input = await copySnapshot(without, path.join(base, 'no-base-url'));
    const manifest = (await readJson(input, '_cv-snapshot/manifest.json')) as { options: Record<string, unknown> };
    manifest.options = { ...manifest.options, links: 'absolute', baseUrl: null };
    await rewriteFile(input, '_cv-snapshot/manifest.json', JSON.stringify(manifest, null, 2), true);
    const out = path.join(base, 'from-no-base-url');
    const run = await runMain(['catalogue', input, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `cv-snapshot catalogue: ${input}: _cv-snapshot/manifest.json is not a cv-snapshot manifest ("options.links" is ` +
        'absolute, but "options.baseUrl" is null). Give a directory that crawl wrote (--out) or an archive that pack ' +
        'wrote.\n',
    );
    await expect(readlink(out)).rejects.toThrow(/ENOENT/);
  });

  it('names SHA256SUMS alone when it is the file that cannot be read; publishes nothing', async () => {
    const input = await copySnapshot(without, path.join(base, 'no-sums'));
    await rm(path.join(input, '_cv-snapshot', 'SHA256SUMS'));
    const out = path.join(base, 'from-no-sums');
    const run = await runMain(['catalogue', input, '--out', out]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toBe(
      `cv-snapshot catalogue: ${input} has no _cv-snapshot/SHA256SUMS: the snapshot is incomplete (its crawl did not ` +
        'finish, or the file was removed). Give a directory that crawl wrote (--out) or an archive that pack wrote.\n',
    );
    await expect(readlink(out)).rejects.toThrow(/ENOENT/);
  });

  it('writes the manifest back as it read it: a member it does not know keeps its value and its place', async () => {
    const input = await copySnapshot(without, path.join(base, 'future-member'));
    const read = (await readJson(input, '_cv-snapshot/manifest.json')) as Record<string, unknown>;
    // A member a later version might write, between two known ones, holding a number with a fraction.
    const entries = Object.entries(read);
    const at = entries.findIndex(([key]) => key === 'options');
    entries.splice(at, 0, ['laterVersion', { share: 0.25, order: ['b', 'a'] }]);
    const manifest = Object.fromEntries(entries);
    await rewriteFile(input, '_cv-snapshot/manifest.json', JSON.stringify(manifest, null, 2), true);
    const out = path.join(base, 'from-future-member');
    await addCatalogue({ input, out });
    const written = (await readJson(out, '_cv-snapshot/manifest.json')) as Record<string, unknown>;
    const crawled = (await readJson(withPages, '_cv-snapshot/manifest.json')) as Record<string, unknown>;
    const keys = Object.keys(crawled);
    keys.splice(keys.indexOf('options'), 0, 'laterVersion');
    expect(Object.keys(written)).toEqual(keys);
    expect(written).toEqual({ ...crawled, laterVersion: { share: 0.25, order: ['b', 'a'] } });
  });

  it('reads SHA256SUMS in any order, copies a path listed twice once, refuses one with two checksums', async () => {
    // A SHA256SUMS that sha256sum could have written: the lines reversed, a record listed a second time.
    const input = await copySnapshot(without, path.join(base, 'listed-twice'));
    const sums = path.join(input, '_cv-snapshot', 'SHA256SUMS');
    const lines = (await readFile(sums, 'utf8')).trimEnd().split('\n').reverse();
    const record = lines.find((line) => line.endsWith('  sms/cv/api/v1/units/1/index.html'))!;
    await writeFile(sums, `${[...lines, record].join('\n')}\n`);
    expect((await verifySnapshot(input)).problems).not.toEqual([]); // verify names the repeated line
    const out = path.join(base, 'from-listed-twice');
    await addCatalogue({ input, out });
    expect(await treeHashes(out)).toEqual(expected);

    // The same path with another checksum: one of the two lines cannot match the file.
    const other = `${'0'.repeat(64)}${record.slice(64)}`;
    await writeFile(sums, `${[...lines, other].join('\n')}\n`);
    const refused = path.join(base, 'from-two-checksums');
    await expect(addCatalogue({ input, out: refused })).rejects.toThrow(
      /sms\/cv\/api\/v1\/units\/1\/index\.html in .* does not match its SHA256SUMS/,
    );
    await expect(readlink(refused)).rejects.toThrow(/ENOENT/);
  });
  it('never writes over a directory it did not make', async () => {
    const out = path.join(base, 'foreign');
    await mkdir(out);
    await writeFile(path.join(out, 'notes.txt'), 'mine');
    const before = await treeHashes(out);
    await expect(addCatalogue({ input: without, out })).rejects.toThrow(OutputDirError);
    expect(await treeHashes(out)).toEqual(before);
  });

  it('never touches a crawl left in staging, and clears what an interrupted catalogue run left there', async () => {
    const out = path.join(base, 'staged');
    const staging = `${out}.staging`;
    await mkdir(path.join(staging, 'tree'), { recursive: true });
    await writeFile(path.join(staging, 'run.json'), '{"root":"http://example.org/api/"}');
    await writeFile(path.join(staging, 'tree', 'kept.json'), 'a crawl in progress');
    await expect(addCatalogue({ input: without, out })).rejects.toThrow(/did not finish.*--resume/);
    expect(await readFile(path.join(staging, 'tree', 'kept.json'), 'utf8')).toBe('a crawl in progress');

    await writeFile(path.join(staging, 'run.json'), '{"command":"catalogue","input":"x"}');
    await addCatalogue({ input: without, out });
    expect(await treeHashes(out)).toEqual(expected);
  });

  it('refuses an input that publishing would delete: an older snapshot of the same --out', async () => {
    const out = path.join(base, 'generations');
    await addCatalogue({ input: without, out });
    const first = path.resolve(path.dirname(out), await readlink(out));
    // In place: --out then names a second snapshot and keeps the first for rollback.
    await addCatalogue({ input: out, out });
    expect(path.resolve(path.dirname(out), await readlink(out))).not.toBe(first);
    // A third publish would keep the second and delete the first: the first is refused as input.
    const before = await treeHashes(first);
    await expect(addCatalogue({ input: first, out })).rejects.toThrow(/older snapshot .* would delete/);
    expect(await treeHashes(first)).toEqual(before);
  });

  it('from the command line: --out is required, and in place keeps the input as the previous snapshot', async () => {
    const missing = await runMain(['catalogue', without]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('needs --out');

    const generation = await readlink(without);
    const before = await treeHashes(without);
    const run = await runMain(['catalogue', without, '--out', without, '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { out: string; copied: number; pages: number };
    expect(printed.out).toBe(path.resolve(without));
    // Every file but the manifest, SHA256SUMS and the four host files, which are written anew.
    expect(printed.copied).toBe(Object.keys(before).length - 6);
    expect(await treeHashes(without)).toEqual(expected);
    expect(await readlink(without)).not.toBe(generation);
    expect(await treeHashes(path.resolve(path.dirname(without), generation))).toEqual(before);
    const manifest = (await readJson(without, '_cv-snapshot/manifest.json')) as { options: { catalogue: string } };
    expect(manifest.options.catalogue).toBe('html');
  });
});
