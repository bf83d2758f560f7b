/**
 * What follows the end of the tar archive inside a .tar.gz: the zeros of tar's last record and the end
 * of the gzip stream are read; endless data appended (`<(cat snap.tar.gz; cat /dev/zero | gzip -1)`), another
 * archive, or bytes that are not gzip end the command with a sentence, in verify, diff and catalogue alike, and an
 * endless run of pax headers is counted against the extraction limit. Run through the built command line, the
 * archive given as a pipe (`<(…)`) the way the README shows it.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { packSnapshot } from '../../src/archive/index.js';
import { CLI, runCli, runCollecting, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { writeSnapshot } from './snapshot-fixture.js';
import { header } from './tar-fixture.js';

/** Runs `bash -c script` with the CLI as $0 and `args` as $1…; the script reads `"$0" verify <(…)` and so on. */
function runShell(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return runCollecting('bash', ['-c', script.replace(/\bcli\b/g, `"${process.execPath}" "$0"`), CLI, ...args], { env });
}

async function packed(): Promise<{ base: string; archive: string; env: NodeJS.ProcessEnv; tmp: string }> {
  const base = await tempDir();
  const archive = (await packSnapshot(await writeSnapshot(path.join(base, 'snap')))).output;
  const tmp = await tempDir();
  return { base, archive, env: { TMPDIR: tmp }, tmp };
}

const ENDLESS = `goes on for more than 1 MiB after the end of its tar archive`;

describe('data after the end of the tar archive', () => {
  it('ends verify, diff and catalogue on an archive followed by endless gzip data, with a sentence', async () => {
    const { base, archive, env, tmp } = await packed();
    const zeros = '<(cat "$1"; cat /dev/zero | gzip -1)';
    const [verify, diff, catalogue] = await Promise.all([
      runShell(`exec cli verify ${zeros}`, [archive], env),
      runShell(`exec cli diff "$1" ${zeros}`, [archive], env),
      runShell(`exec cli catalogue ${zeros} --out "$2"`, [archive, path.join(base, 'published')], env),
    ]);
    for (const [name, result] of [
      ['verify', verify],
      ['diff', diff],
      ['catalogue', catalogue],
    ] as const) {
      expect(result.stderr, name).toMatch(new RegExp(`^cv-snapshot ${name}: /dev/fd/\\d+ ${ENDLESS};`, 'm'));
      expect(result.stderr).toContain('Pack or download it again.');
      expect(result.code, name).toBe(1);
    }
    expect(await readdir(tmp)).toEqual([]);
    expect(await readdir(base)).not.toContain('published');
  });

  it('reads a short trailer as tar writes it, and refuses a second archive or bytes that are not gzip', async () => {
    const { base, archive, env } = await packed();
    const bytes = await readFile(archive);
    const write = async (name: string, tail: Buffer): Promise<string> => {
      const file = path.join(base, name);
      await writeFile(file, Buffer.concat([bytes, tail]));
      return file;
    };
    // A record's worth of zeros in a gzip member of their own: read, and the archive is the same snapshot.
    const padded = await write('padded.tar.gz', gzipSync(Buffer.alloc(10_240)));
    const appended = await write('appended.tar.gz', gzipSync(Buffer.alloc(2 << 20)));
    const garbage = await write('garbage.tar.gz', Buffer.from('this is not gzip\n'));
    const verify = (file: string): Promise<CliResult> => runCli(['verify', file], { env });
    const [plain, withPadding, withArchive, withGarbage] = await Promise.all([
      verify(archive),
      verify(padded),
      verify(appended),
      verify(garbage),
    ]);
    expect(withPadding.code).toBe(plain.code);
    expect(withPadding.stdout.replaceAll(padded, archive)).toBe(plain.stdout);
    expect(withArchive.stderr).toBe(
      `cv-snapshot verify: ${appended} ${ENDLESS}; something was appended to it (another archive, or endless ` +
        'data), and it was not read. Pack or download it again.\n',
    );
    // Bytes that are not gzip fail where gzip finds them, with the sentence for any damage.
    expect(withGarbage.stderr).toBe(
      `cv-snapshot verify: ${garbage} is not an intact .tar.gz (gzip says: incorrect header check); pack or ` +
        'download it again.\n',
    );
    expect([withArchive.code, withGarbage.code]).toEqual([1, 1]);
  });

  it('counts an endless run of pax global headers against the extraction limit', async () => {
    const { env, tmp } = await packed();
    const block = header('pax_global_header', 'g', 0).toString('base64');
    // Writes the 512-byte header over and over, as fast as the pipe takes it.
    const writer =
      `const b = Buffer.concat(Array(2048).fill(Buffer.from('${block}', 'base64'))); ` +
      `const w = () => { while (process.stdout.write(b)); process.stdout.once('drain', w); }; w();`;
    const result = await runShell(
      `exec cli verify <("${process.execPath}" -e "$1" | gzip -1) --max-extract-bytes 1000000`,
      [writer],
      env,
    );
    expect(result.stderr).toMatch(/^cv-snapshot verify: \/dev\/fd\/\d+ expands to more than 1000000 bytes /);
    expect(result.stderr).toContain('(the --max-extract-bytes given); extraction stopped before "pax_global_header".');
    expect(result.code).toBe(1);
    expect(await readdir(tmp)).toEqual([]);
  });
});
