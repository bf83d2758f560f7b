import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ArchiveError, extractArchive, packSnapshot } from '../../src/archive/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { listTree, writeSnapshot } from './snapshot-fixture.js';
import { fileEntry, header, paxHeader, paxRecord, tarGz } from './tar-fixture.js';

const run = promisify(execFile);

describe('extractArchive', () => {
  it("round-trips pack's output", async () => {
    const base = await tempDir();
    const dir = await writeSnapshot(path.join(base, 'snap'));
    const { output } = await packSnapshot(dir);
    await extractArchive(output, path.join(base, 'x'));
    expect(await listTree(path.join(base, 'x'))).toEqual(await listTree(dir));
  });

  it.each(['gnu', 'pax', 'ustar'])("reads GNU tar's %s format with ./ entries", async (format) => {
    const base = await tempDir();
    const dir = await writeSnapshot(path.join(base, 'snap'));
    if (format === 'ustar') {
      // ustar cannot hold the fixture's 180-byte segment; drop that one file.
      const long = (await listTree(dir)).find((e) => e.rel.includes('ääää'))!;
      await rm(path.join(dir, long.rel), { recursive: true });
    }
    const archive = path.join(base, `${format}.tgz`);
    await run('tar', [`--format=${format}`, '-C', dir, '-czf', archive, '.']);
    await extractArchive(archive, path.join(base, 'x'));
    expect(await listTree(path.join(base, 'x'))).toEqual(await listTree(dir));
  });

  // Each case gets the test's base directory, so the absolute path points at a place the test can check.
  const hostile: Array<[string, (base: string) => Buffer, (base: string) => string]> = [
    ['a parent-directory path', () => header('../evil', '0'), () => '"../evil"'],
    ['a nested parent-directory path', () => header('a/../../evil', '0'), () => '"a/../../evil"'],
    ['an absolute path', (base) => header(`${base}/abs/evil`, '0'), (base) => `"${base}/abs/evil"`],
    ['a symbolic link', () => header('link', '2', 0, '/etc'), () => '"link" that is a symbolic link'],
    ['a hard link', () => header('hard', '1', 0, '/etc/passwd'), () => '"hard" that is a hard link'],
    ['a device', () => header('dev', '3'), () => '"dev" that is a character device'],
  ];

  it.each(hostile)('refuses %s and writes nothing outside (or inside) into', async (_what, entry, expected) => {
    const base = await tempDir();
    const archive = path.join(base, 'hostile.tar.gz');
    await writeFile(
      archive,
      tarGz(fileEntry('ok/first.txt', 'harmless'), [entry(base)], fileEntry('after.txt', 'later')),
    );
    const error = await extractArchive(archive, path.join(base, 'into')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as Error).message).toContain(expected(base));
    // into was created by the call, so it is gone again; nothing else appeared, here or one level up.
    expect(await readdir(base)).toEqual(['hostile.tar.gz']);
    expect(existsSync(path.join(path.dirname(base), 'evil'))).toBe(false);
  });

  it('leaves an existing empty into empty on failure, and refuses a non-empty one', async () => {
    const base = await tempDir();
    const archive = path.join(base, 'hostile.tar.gz');
    await writeFile(archive, tarGz(fileEntry('ok.txt', 'fine'), [header('../evil', '0')]));
    const into = path.join(base, 'into');
    await mkdir(into);
    await expect(extractArchive(archive, into)).rejects.toThrow(/"\.\.\/evil"/);
    expect(await readdir(into)).toEqual([]);
    await writeFile(path.join(into, 'mine'), 'keep');
    await expect(extractArchive(archive, into)).rejects.toThrow(/not empty/);
    expect(await readFile(path.join(into, 'mine'), 'utf8')).toBe('keep');
  });

  it('refuses a damaged or truncated archive', async () => {
    const base = await tempDir();
    const dir = await writeSnapshot(path.join(base, 'snap'));
    const { output } = await packSnapshot(dir);
    const bytes = await readFile(output);
    const flipped = Buffer.from(bytes);
    flipped[Math.floor(bytes.length / 2)]! ^= 0xff;
    await writeFile(path.join(base, 'flipped.tar.gz'), flipped);
    await expect(extractArchive(path.join(base, 'flipped.tar.gz'), path.join(base, 'a'))).rejects.toThrow(ArchiveError);
    await writeFile(path.join(base, 'short.tar.gz'), bytes.subarray(0, bytes.length - 20));
    await expect(extractArchive(path.join(base, 'short.tar.gz'), path.join(base, 'b'))).rejects.toThrow(ArchiveError);
    await writeFile(path.join(base, 'no-end.tar.gz'), gzipSync(Buffer.concat(fileEntry('a.txt', 'x'))));
    await expect(extractArchive(path.join(base, 'no-end.tar.gz'), path.join(base, 'c'))).rejects.toThrow(/truncated/);
    expect(
      existsSync(path.join(base, 'a')) || existsSync(path.join(base, 'b')) || existsSync(path.join(base, 'c')),
    ).toBe(false);
  });

  it('refuses two entries for one path, or a file where a directory is, naming the entry', async () => {
    const base = await tempDir();
    const twice = path.join(base, 'twice.tar.gz');
    await writeFile(twice, tarGz(fileEntry('a/same.txt', 'first'), fileEntry('a/same.txt', 'second')));
    await expect(extractArchive(twice, path.join(base, 'x'))).rejects.toThrow(
      `${twice} has more than one entry at "a/same.txt" (or a file where a directory is); the archive is damaged.`,
    );
    const under = path.join(base, 'under.tar.gz');
    await writeFile(under, tarGz(fileEntry('a', 'a file'), fileEntry('a/b.txt', 'below a file')));
    await expect(extractArchive(under, path.join(base, 'y'))).rejects.toThrow(/has more than one entry at "a\/b\.txt"/);
    expect((await readdir(base)).sort()).toEqual(['twice.tar.gz', 'under.tar.gz']);
  });

  // Number() would take each of these as a size; pax says decimal digits.
  it.each(['1e3', '0x10', ' 7', '', '-1', '99999999999999999999'])('refuses a pax size of "%s"', async (size) => {
    const base = await tempDir();
    const archive = path.join(base, 'pax.tar.gz');
    await writeFile(archive, tarGz(paxHeader(paxRecord('size', size)), fileEntry('a.txt', 'x')));
    await expect(extractArchive(archive, path.join(base, 'x'))).rejects.toThrow(
      `${archive} has a pax header with the size "${size}", which is not a size; it is damaged.`,
    );
    expect(await readdir(base)).toEqual(['pax.tar.gz']);
  });

  const malformed = [['0x1a path=abc\n'], ['12  path=a\n'], ['5 path=abcdef\n'], ['3 x']];
  it.each(malformed)('refuses the pax record %j', async (record) => {
    const base = await tempDir();
    const archive = path.join(base, 'pax.tar.gz');
    await writeFile(archive, tarGz(paxHeader(record), fileEntry('a.txt', 'x')));
    await expect(extractArchive(archive, path.join(base, 'x'))).rejects.toThrow(
      `${archive} has a malformed pax extended header`,
    );
  });

  it('takes a pax size and path that are right', async () => {
    const base = await tempDir();
    const archive = path.join(base, 'pax.tar.gz');
    const data = Buffer.from('twelve bytes');
    // The ustar size field says 0; the pax size (12) is the one that counts.
    const entry = [header('short', '0', 0), data, Buffer.alloc(500)];
    await writeFile(archive, tarGz(paxHeader(paxRecord('size', '12') + paxRecord('path', 'dir/long-name.txt')), entry));
    await extractArchive(archive, path.join(base, 'x'));
    expect(await readFile(path.join(base, 'x', 'dir', 'long-name.txt'), 'utf8')).toBe('twelve bytes');
  });

  it('says so when the archive does not exist', async () => {
    const base = await tempDir();
    await expect(extractArchive(path.join(base, 'missing.tar.gz'), path.join(base, 'x'))).rejects.toThrow(
      /does not exist/,
    );
    expect(existsSync(path.join(base, 'x'))).toBe(false);
  });
});
