/**
 * pack never harms what it did not make, and its archive is exactly the snapshot: an existing file that is not its
 * own archive is refused (unless --force), files SHA256SUMS does not list stay out (and are named), a listed file
 * that is missing or changed stops it with nothing written, an output inside a snapshot is refused, and a manifest
 * time a tar header cannot hold is a sentence, not a crash. What the command prints comes from its `main` in this
 * process, but for the named pipe: a pack that opened it would wait forever, holding a thread of the process it runs
 * in, so it runs the built command line.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packSnapshot, type PackOptions } from '../../src/archive/index.js';
import { runCli, runMain } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { FIXTURE_FILES, SUMS_FILE, writeSnapshot } from './snapshot-fixture.js';

const run = promisify(execFile);
const DOC = 'sms/cv/api/v1/units/1/index.html';

const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** Packs in-process (the command line is run where its output is what is tested); the error's message, if any. */
async function packFails(dir: string, options: PackOptions = {}): Promise<string> {
  const error = await packSnapshot(dir, options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, 'pack should have failed').toBeInstanceOf(Error);
  return (error as Error).message;
}

async function snapshotIn(base: string, name = 'snap'): Promise<string> {
  return writeSnapshot(path.join(base, name));
}

/** The entries of a .tar.gz as GNU tar lists them, directories without their trailing slash. */
async function tarList(archive: string): Promise<string[]> {
  const { stdout } = await run('tar', ['--quoting-style=literal', '-tzf', archive]);
  return stdout
    .trimEnd()
    .split('\n')
    .map((name) => name.replace(/\/$/, ''));
}

describe('pack and an existing output', () => {
  it('refuses to replace a file it did not write, and replaces it with --force', async () => {
    const base = await tempDir();
    const dir = await snapshotIn(base);
    const notes = path.join(base, 'notes.txt');
    await writeFile(notes, 'my notes\n');
    const refused = await runMain(['pack', dir, '--output', notes]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `cv-snapshot pack: ${notes} already exists and is not an archive that pack wrote (it does not start as the ` +
        '.tar.gz files pack writes); pack replaces only its own archives. Choose another --output, or add --force ' +
        'to replace it.\n',
    );
    expect(await readFile(notes, 'utf8')).toBe('my notes\n');
    expect((await readdir(base)).sort()).toEqual(['notes.txt', 'snap']);

    await packSnapshot(dir, { output: notes, force: true });
    expect((await readFile(notes)).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  it('refuses a checksum file of yours at <output>.sha256, and a gzip file whose sidecar does not match', async () => {
    const base = await tempDir();
    const dir = await snapshotIn(base);
    const archive = path.join(base, 'release.tar.gz');
    await writeFile(`${archive}.sha256`, 'my own list of checksums\n');
    expect(await packFails(dir, { output: archive })).toContain(
      `${archive}.sha256 already exists and is not a checksum file that pack wrote`,
    );
    expect(await readFile(`${archive}.sha256`, 'utf8')).toBe('my own list of checksums\n');
    expect(existsSync(archive)).toBe(false);

    // gzip -9n writes the same header as pack: without a matching sidecar it is someone else's archive.
    await rm(`${archive}.sha256`);
    await run('sh', ['-c', `printf 'data' | gzip -9n > '${archive}'`]);
    expect(await packFails(dir, { output: archive })).toContain('(there is no release.tar.gz.sha256 beside it)');
  });

  it('replaces an archive it wrote, with its sidecar, and leaves no temporary file', async () => {
    const base = await tempDir();
    const dir = await snapshotIn(base);
    const first = await packSnapshot(dir);
    // The snapshot is re-crawled (here: one document and its checksum change); the release is packed again.
    const text = `${FIXTURE_FILES[DOC]!.trimEnd()} \n`;
    await writeFile(path.join(dir, DOC), text);
    const sums = await readFile(path.join(dir, SUMS_FILE), 'utf8');
    await writeFile(path.join(dir, SUMS_FILE), sums.replace(sha256(FIXTURE_FILES[DOC]!), sha256(text)));
    const second = await packSnapshot(dir);
    expect(second.sha256).not.toBe(first.sha256);
    expect(sha256(await readFile(second.output))).toBe(second.sha256);
    expect(await readFile(`${second.output}.sha256`, 'utf8')).toBe(`${second.sha256}  snap.tar.gz\n`);
    expect((await readdir(base)).sort()).toEqual(['snap', 'snap.tar.gz', 'snap.tar.gz.sha256']);
  });
});

describe('pack archives exactly the snapshot', () => {
  it('leaves out files SHA256SUMS does not list, naming them, and archives the listed ones', async () => {
    const base = await tempDir();
    const dir = await snapshotIn(base);
    await writeFile(path.join(dir, '.env'), 'TOKEN=secret\n');
    await mkdir(path.join(dir, '.git', 'refs'), { recursive: true });
    await writeFile(path.join(dir, '.git', 'config'), '[remote "origin"]\n');
    await writeFile(path.join(dir, '.git', 'refs', 'main'), 'abc\n');
    await writeFile(path.join(dir, 'sms', 'cv', 'api', 'v1', 'units', 'notes.txt'), 'mine\n');
    await symlink('/etc/passwd', path.join(dir, 'sms', 'cv', 'api', 'v1', 'passwd'));
    const output = path.join(base, 'release.tar.gz');
    const result = await runMain(['pack', dir, '--output', output, '--json']);
    expect(result.code).toBe(0);
    const leftOut = ['.env', '.git/', 'sms/cv/api/v1/passwd', 'sms/cv/api/v1/units/notes.txt'];
    expect(JSON.parse(result.stdout)).toMatchObject({ archive: output, leftOut });
    expect(result.stderr).toBe(
      `Left out of the archive: ${leftOut.join(', ')} in ${dir}, which are not part of the snapshot (not listed in ` +
        '_cv-snapshot/SHA256SUMS).\n',
    );
    const files = [...Object.keys(FIXTURE_FILES), SUMS_FILE];
    const names = await tarList(output);
    expect(names.filter((n) => files.includes(n)).sort()).toEqual([...files].sort());
    // Everything else is a directory on the way to a listed file.
    for (const name of names.filter((n) => !files.includes(n))) {
      expect(
        files.some((f) => f.startsWith(`${name}/`)),
        name,
      ).toBe(true);
    }
  });

  it('refuses a listed file that is missing or changed, keeping the earlier archive, no temporary file', async () => {
    const base = await tempDir();
    const dir = await snapshotIn(base);
    const archive = (await packSnapshot(dir)).output;
    const before = await readFile(archive);

    await writeFile(path.join(dir, DOC), '{"edited": true}\n');
    const changed = await runMain(['pack', dir]);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toBe(
      `cv-snapshot pack: ${DOC} does not match its checksum in ${SUMS_FILE}: it was changed after the crawl, or is ` +
        'being written now. pack never archives a changed snapshot: run cv-snapshot verify on it, restore the file ' +
        'or crawl again.\n',
    );
    await rm(path.join(dir, DOC));
    expect(await packFails(dir)).toContain(`lacks 1 of the files its ${SUMS_FILE} lists (${DOC})`);

    expect((await readFile(archive)).equals(before)).toBe(true);
    expect((await readdir(base)).sort()).toEqual(['snap', 'snap.tar.gz', 'snap.tar.gz.sha256']);
  });

  it('refuses a listed file that is now a named pipe, without opening it', async () => {
    const base = await tempDir();
    const dir = await snapshotIn(base);
    await rm(path.join(dir, DOC));
    await run('mkfifo', [path.join(dir, DOC)]);
    const result = await runCli(['pack', dir]);
    expect(result.stderr).toBe(
      `cv-snapshot pack: ${dir} holds ${DOC} as a named pipe, where ${SUMS_FILE} lists a file; pack never ` +
        'archives a snapshot that differs from its checksums. Run cv-snapshot verify on it.\n',
    );
    expect(result.code).toBe(1);
    expect(await readdir(base)).toEqual(['snap']);
  });

  it('refuses a SHA256SUMS that lists a path outside the snapshot, and never reads it', async () => {
    const base = await tempDir();
    const dir = await snapshotIn(base);
    await writeFile(path.join(base, 'secret'), 'outside\n');
    const sums = await readFile(path.join(dir, SUMS_FILE), 'utf8');
    await writeFile(path.join(dir, SUMS_FILE), `${sums}${sha256('outside\n')}  ../secret\n`);
    const line = sums.split('\n').length;
    expect(await packFails(dir)).toContain(`line ${line} lists "../secret", which climbs out of the snapshot`);
    expect(existsSync(path.join(base, 'snap.tar.gz'))).toBe(false);
  });
});

describe('pack and where it writes', () => {
  it("refuses an output inside the snapshot, reached through --out's link or in another generation", async () => {
    const base = await tempDir();
    const generations = path.join(base, 'mirror.cv-snapshot');
    const current = await snapshotIn(generations, 'snapshot-2');
    await snapshotIn(generations, 'snapshot-1');
    const mirror = path.join(base, 'mirror');
    await symlink('mirror.cv-snapshot/snapshot-2', mirror);
    const throughGeneration = await packFails(mirror, { output: path.join(current, 'x.tar.gz') });
    expect(throughGeneration).toContain(`would be inside the snapshot ${current} and pack itself`);
    const throughLink = await packFails(mirror, { output: path.join(mirror, 'sms', 'x.tar.gz') });
    expect(throughLink).toContain('would be inside the snapshot');
    const previous = path.join(generations, 'snapshot-1');
    const other = await packFails(mirror, { output: path.join(previous, 'x.tar.gz') });
    expect(other).toContain(`would be inside the snapshot ${previous}, which would then hold a file`);
    // Beside the generations is fine, as is the default beside the link.
    await packSnapshot(mirror, { output: path.join(generations, 'x.tar.gz') });
    expect((await packSnapshot(mirror)).output).toBe(path.join(base, 'mirror.tar.gz'));
    expect(await readdir(current)).not.toContain('x.tar.gz');
  });

  it('says so when the manifest holds a time a tar header cannot hold', async () => {
    const base = await tempDir();
    const dir = await snapshotIn(base);
    const manifest = path.join(dir, '_cv-snapshot', 'manifest.json');
    // 2286: past the 8589934591 seconds of ustar's mtime field. An older crawl accepted such a SOURCE_DATE_EPOCH.
    const createdAt = '2286-11-20T17:46:39.000Z';
    await writeFile(manifest, JSON.stringify({ format: 'cv-snapshot', formatVersion: 1, createdAt }));
    expect(await packFails(dir)).toBe(
      `${dir}: _cv-snapshot/manifest.json has createdAt "2286-11-20T17:46:39.000Z", which a tar header cannot ` +
        "hold as every file's time (it holds 1970-01-01 to 2242-03-16). The manifest was not written by crawl as " +
        'it is now: crawl the snapshot again (SOURCE_DATE_EPOCH, when set, must be within that range).',
    );
    expect(await readdir(base)).toEqual(['snap']);
  });

  it('says in one sentence what it was given instead of a snapshot directory', async () => {
    const base = await tempDir();
    await writeFile(path.join(base, 'notes.txt'), 'text\n');
    const [missing, file, empty] = await Promise.all([
      runMain(['pack', path.join(base, 'nowhere')]),
      runMain(['pack', path.join(base, 'notes.txt')]),
      runMain(['pack', base]),
    ]);
    expect(missing.stderr).toBe(
      `cv-snapshot pack: ${path.join(base, 'nowhere')} does not exist. Give the snapshot directory that crawl ` +
        'wrote (--out).\n',
    );
    expect(file.stderr).toBe(
      `cv-snapshot pack: ${path.join(base, 'notes.txt')} is a file, not a snapshot directory; give the directory ` +
        'that crawl wrote (--out).\n',
    );
    expect(empty.stderr).toBe(
      `cv-snapshot pack: ${base} is not a cv-snapshot snapshot: it has no _cv-snapshot/manifest.json. Give a ` +
        'directory that crawl wrote (--out) or an archive that pack wrote.\n',
    );
    expect([missing.code, file.code, empty.code]).toEqual([1, 1, 1]);
  });
});
