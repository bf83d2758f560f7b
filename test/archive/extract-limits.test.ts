/**
 * Archives from elsewhere: a small .tar.gz that expands to far more than a snapshot would (bytes, or files) is
 * refused before extraction writes past the limit, with a sentence naming the archive, the limit and the option
 * that raises it, and the temporary directory is removed. Run through the built command line with TMPDIR pointed
 * at a directory of the test's, so that what extraction leaves behind can be seen.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { packSnapshot } from '../../src/archive/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { writeSnapshot } from './snapshot-fixture.js';
import { fileEntry, header } from './tar-fixture.js';

/** A directory for TMPDIR, and the environment that points the CLI at it. */
async function tmp(): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const dir = await tempDir();
  return { dir, env: { TMPDIR: dir } };
}

describe('extraction limits', () => {
  it('refuses an archive that expands past 100 times its size (at least 64 MiB) before writing the file', async () => {
    const base = await tempDir();
    const bomb = path.join(base, 'bomb.tar.gz');
    const size = 65 << 20;
    // 65 MiB of zeros compress to about 65 KiB.
    const tar = Buffer.concat([header('zeros', '0', size), Buffer.alloc(size), Buffer.alloc(1024)]);
    await writeFile(bomb, gzipSync(tar, { level: 1 }));
    const kib = Math.floor((await stat(bomb)).size / 1024);
    const { dir, env } = await tmp();
    const [verify, diff] = await Promise.all([
      runCli(['verify', bomb], { env }),
      runCli(['diff', bomb, bomb], { env }),
    ]);
    const sentence =
      `${bomb} expands to more than ${64 << 20} bytes (the limit for an archive of ${kib} KiB: 100 times its size, ` +
      'at least 64 MiB); extraction stopped before "zeros". If the snapshot really is that large, raise ' +
      '--max-extract-bytes.\n';
    expect(verify.stderr).toBe(`cv-snapshot verify: ${sentence}`);
    expect(diff.stderr).toBe(`cv-snapshot diff: ${sentence}`);
    expect([verify.code, diff.code]).toEqual([1, 1]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses more files than the manifest accounts for; --max-extract-entries and -bytes set limits', async () => {
    const base = await tempDir();
    const manifest = JSON.stringify({ format: 'cv-snapshot', documents: 1, collections: {} });
    const many = Array.from({ length: 100 }, (_, i) => fileEntry(`api/${i}`, '{}'));
    const archive = path.join(base, 'many.tar.gz');
    const tar = [...fileEntry('_cv-snapshot/manifest.json', manifest), ...many.flat(), Buffer.alloc(1024)];
    await writeFile(archive, gzipSync(Buffer.concat(tar)));
    const snapshot = (await packSnapshot(await writeSnapshot(path.join(base, 'snap')))).output;
    const { dir, env } = await tmp();
    const [counted, entries, bytes] = await Promise.all([
      runCli(['verify', archive], { env }),
      runCli(['verify', snapshot, '--max-extract-entries', '5'], { env }),
      runCli(['diff', snapshot, snapshot, '--max-extract-bytes', '1000'], { env }),
    ]);
    // The manifest comes first and counts 1 document: 4 × (1 + 0 collections + 16) = 68 entries.
    expect(counted.stderr).toBe(
      `cv-snapshot verify: ${archive} holds more than 68 files and directories (4 per document its manifest counts ` +
        '(1)); extraction stopped at "api/67". If the snapshot really is that large, raise --max-extract-entries.\n',
    );
    expect(entries.stderr).toMatch(
      /holds more than 5 files and directories \(the --max-extract-entries given\); extraction stopped at "[^"]+"\./,
    );
    expect(bytes.stderr).toMatch(
      /expands to more than 1000 bytes \(the --max-extract-bytes given\); extraction stopped before/,
    );
    expect([counted.code, entries.code, bytes.code]).toEqual([1, 1, 1]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('says in a sentence when no temporary directory can be made, instead of a stack trace', async () => {
    const base = await tempDir();
    const archive = (await packSnapshot(await writeSnapshot(path.join(base, 'snap')))).output;
    const nowhere = path.join(base, 'no-such-dir');
    const result = await runCli(['verify', archive], { env: { TMPDIR: nowhere } });
    expect(result.stderr).toBe(
      `cv-snapshot verify: ${archive} cannot be extracted: no temporary directory can be made in ${nowhere} ` +
        '(ENOENT). Set TMPDIR to a writable directory.\n',
    );
    expect(result.code).toBe(1);
  });
});
