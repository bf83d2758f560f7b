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

const run = promisify(execFile);

/** A ustar header written here from the format's definition, independently of src/archive. */
function header(name: string, type: string, size = 0, linkname = ''): Buffer {
  const block = Buffer.alloc(512);
  const octal = (value: number, offset: number, width: number) =>
    block.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, width, 'ascii');
  block.write(name, 0, 100, 'utf8');
  octal(type === '5' ? 0o755 : 0o644, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(size, 124, 12);
  octal(1_700_000_000, 136, 12);
  block.write(type, 156, 1, 'ascii');
  block.write(linkname, 157, 100, 'utf8');
  block.write('ustar\x0000', 257, 8, 'ascii');
  block.fill(0x20, 148, 156);
  const sum = block.reduce((a, b) => a + b, 0);
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return block;
}

function fileEntry(name: string, text: string): Buffer[] {
  const data = Buffer.from(text);
  return [header(name, '0', data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512)];
}

function tarGz(...parts: Buffer[][]): Buffer {
  return gzipSync(Buffer.concat([...parts.flat(), Buffer.alloc(1024)]));
}

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

  it('says so when the archive does not exist', async () => {
    const base = await tempDir();
    await expect(extractArchive(path.join(base, 'missing.tar.gz'), path.join(base, 'x'))).rejects.toThrow(
      /does not exist/,
    );
    expect(existsSync(path.join(base, 'x'))).toBe(false);
  });
});
