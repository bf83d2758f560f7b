import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { packSnapshot } from '../../src/archive/index.js';
import { GzipFinisher } from '../../src/archive/pack.js';
import { packCommand } from '../../src/cli/pack-command.js';
import { tempDir } from '../helpers/temp-dir.js';
import { CREATED_AT_TAR, FIXTURE_FILES, listTree, SUMS_FILE, writeSnapshot } from './snapshot-fixture.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function packedFixture(options: Parameters<typeof writeSnapshot>[1] = {}) {
  const base = await tempDir();
  const dir = await writeSnapshot(path.join(base, 'snap'), options);
  const result = await packSnapshot(dir);
  return { base, dir, result, bytes: await readFile(result.output) };
}

describe('packSnapshot', () => {
  it('gives the same bytes and sha256 when packing twice, and reports them truthfully', async () => {
    const { dir, result, bytes } = await packedFixture();
    const again = await packSnapshot(dir, path.join(path.dirname(dir), 'again.tar.gz'));
    const againBytes = await readFile(again.output);
    expect(againBytes.equals(bytes)).toBe(true);
    expect(again.sha256).toBe(result.sha256);
    expect(result.sha256).toBe(sha256(bytes));
    expect(result.bytes).toBe(bytes.length);
  });

  it('does not depend on creation order, mtimes or permissions of the files', async () => {
    const plain = await packedFixture();
    const scrambled = await packedFixture({ reverse: true, scramble: true });
    expect(scrambled.result.sha256).toBe(plain.result.sha256);
    expect(scrambled.bytes.equals(plain.bytes)).toBe(true);
  });

  it('does not depend on TZ or LANG (packed in a child process)', async () => {
    const { base, result } = await packedFixture();
    const loader = pathToFileURL(path.join(here, 'ts-loader.mjs')).href;
    const pack = pathToFileURL(path.resolve(here, '../../src/archive/pack.ts')).href;
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        `data:text/javascript,import{register}from"node:module";register(${JSON.stringify(loader)})`,
        '--input-type=module',
        '-e',
        `import { packSnapshot } from ${JSON.stringify(pack)};
         const r = await packSnapshot(process.argv[1], process.argv[2]);
         process.stdout.write(r.sha256);`,
        path.join(base, 'snap'),
        path.join(base, 'child.tar.gz'),
      ],
      { env: { ...process.env, TZ: 'Pacific/Kiritimati', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' } },
    );
    expect(stdout).toBe(result.sha256);
    expect((await readFile(path.join(base, 'child.tar.gz'))).equals(await readFile(result.output))).toBe(true);
  });

  it('extracts with GNU tar to a tree identical to the snapshot, whose SHA256SUMS then checks', async () => {
    const { base, dir, result } = await packedFixture();
    const copy = path.join(base, 'copy');
    await mkdir(copy);
    await run('tar', ['-xzf', result.output, '-C', copy]);
    expect(await listTree(copy)).toEqual(await listTree(dir));
    expect((await listTree(copy)).filter((e) => e.kind === 'file')).toHaveLength(Object.keys(FIXTURE_FILES).length + 1);
    await run('sha256sum', ['--strict', '-c', SUMS_FILE], { cwd: copy });
  });

  it('writes <archive>.sha256 that sha256sum -c accepts in the archive directory', async () => {
    const { base, result } = await packedFixture();
    expect(await readFile(`${result.output}.sha256`, 'utf8')).toBe(`${result.sha256}  snap.tar.gz\n`);
    const { stdout } = await run('sha256sum', ['--strict', '-c', 'snap.tar.gz.sha256'], { cwd: base });
    expect(stdout).toBe('snap.tar.gz: OK\n');
  });

  it('lists entries in byte order with uid/gid 0, fixed modes and the manifest time (tar -tv)', async () => {
    const { dir, result } = await packedFixture({ scramble: true });
    const { stdout } = await run('tar', ['--utc', '--quoting-style=literal', '-tvzf', result.output], {
      env: { ...process.env, TZ: 'UTC', LC_ALL: 'C' },
    });
    const lines = stdout.trimEnd().split('\n');
    const tree = await listTree(dir);
    expect(lines).toHaveLength(tree.length);
    const names: string[] = [];
    for (const line of lines) {
      const match = /^([-d])(rw[-x]r-[-x]r-[-x]) 0\/0 +(\d+) (\d{4}-\d\d-\d\d \d\d:\d\d) (.+)$/.exec(line);
      expect(match, line).not.toBeNull();
      const [, type, mode, , time, name] = match!;
      expect(mode).toBe(type === 'd' ? 'rwxr-xr-x' : 'rw-r--r--');
      expect(time).toBe(CREATED_AT_TAR);
      names.push(type === 'd' ? name!.replace(/\/$/, '') : name!);
    }
    // listTree sorts by UTF-8 bytes, independently of pack.
    expect(names).toEqual(tree.map((e) => e.rel));
    const units = names.indexOf('sms/cv/api/v1/units');
    expect(units).toBeGreaterThan(-1);
    expect(units).toBeLessThan(names.indexOf('sms/cv/api/v1/units/1/index.html'));
    expect(names.indexOf('sms/cv/api/v1/units/ｚ')).toBeLessThan(names.indexOf('sms/cv/api/v1/units/😀'));
  });

  it('writes plain ustar headers, with one path-only pax header for the path ustar cannot hold', async () => {
    const { bytes } = await packedFixture();
    const tar = gunzipSync(bytes);
    const types: string[] = [];
    const paxRecords: string[] = [];
    for (let offset = 0; tar.readUInt8(offset) !== 0;) {
      const type = String.fromCharCode(tar.readUInt8(offset + 156));
      const size = parseInt(tar.toString('ascii', offset + 124, offset + 135), 8);
      expect(tar.toString('latin1', offset + 257, offset + 265)).toBe('ustar\x0000');
      expect(tar.subarray(offset + 265, offset + 329).every((b) => b === 0)).toBe(true); // uname, gname
      if (type === 'x') paxRecords.push(tar.toString('utf8', offset + 512, offset + 512 + size));
      types.push(type);
      offset += 512 + Math.ceil(size / 512) * 512;
    }
    expect(new Set(types)).toEqual(new Set(['0', '5', 'x']));
    const long = `sms/cv/api/v1/manufacturers/${'ä'.repeat(90)}/`;
    expect(paxRecords).toEqual([
      `${Buffer.byteLength(long) + 10} path=${long}\n`,
      `${Buffer.byteLength(long) + 20} path=${long}index.html\n`,
    ]);
  });

  it('writes a gzip header with no file name, mtime 0 and OS byte 3', async () => {
    const { bytes } = await packedFixture();
    expect([...bytes.subarray(0, 3)]).toEqual([0x1f, 0x8b, 8]);
    expect(bytes[3]).toBe(0); // FLG: no FNAME, FCOMMENT, FEXTRA or FHCRC
    expect(bytes.readUInt32LE(4)).toBe(0); // MTIME
    expect(bytes[9]).toBe(3); // OS: Unix, whatever platform packed it
  });

  it("overwrites the OS byte that another platform's zlib writes, even when the header arrives in pieces", async () => {
    const fromMac = gzipSync(Buffer.from('snapshot'));
    fromMac[9] = 19; // what zlib >= 1.2.12 writes on macOS
    const finisher = new GzipFinisher();
    const out: Buffer[] = [];
    const bytewise = Array.from(fromMac, (byte) => Buffer.from([byte]));
    await pipeline(Readable.from(bytewise), finisher, async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) out.push(chunk);
    });
    const written = Buffer.concat(out);
    expect(written[9]).toBe(3);
    expect(written.subarray(10).equals(fromMac.subarray(10))).toBe(true);
    expect(finisher.hash.digest('hex')).toBe(sha256(written));
  });

  it('writes <dir>.tar.gz beside the directory by default and leaves no temporary file', async () => {
    const base = await tempDir();
    await writeSnapshot(path.join(base, 'snap'));
    const result = await packSnapshot(`${path.join(base, 'snap')}/`);
    expect(result.output).toBe(path.join(base, 'snap.tar.gz'));
    expect((await readdir(base)).sort()).toEqual(['snap', 'snap.tar.gz', 'snap.tar.gz.sha256']);
  });

  it('refuses a directory without a manifest, and an output inside the snapshot', async () => {
    const base = await tempDir();
    const dir = await writeSnapshot(path.join(base, 'snap'));
    await expect(packSnapshot(dir, path.join(dir, 'self.tar.gz'))).rejects.toThrow(/inside the snapshot/);
    await rename(path.join(dir, '_cv-snapshot/manifest.json'), path.join(base, 'manifest.json'));
    await expect(packSnapshot(dir)).rejects.toThrow(/not a cv-snapshot snapshot/);
    expect(existsSync(path.join(base, 'snap.tar.gz'))).toBe(false);
  });
});

describe('pack command', () => {
  it('prints the archive path and its sha256', async () => {
    const base = await tempDir();
    const dir = await writeSnapshot(path.join(base, 'snap'));
    let stdout = '';
    const io = {
      stdout: { write: (s: string) => ((stdout += s), true) } as unknown as NodeJS.WritableStream,
      stderr: process.stderr,
      env: {},
      signal: new AbortController().signal,
    };
    const output = path.join(base, 'release.tar.gz');
    expect(await packCommand.run([dir], { format: 'tar.gz', output, force: false, json: false }, io)).toBe(0);
    const sha = sha256(await readFile(output));
    expect(stdout).toBe(`${output}\n${sha}\n`);
  });
});
