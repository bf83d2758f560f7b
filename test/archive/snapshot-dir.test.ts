import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ArchiveError, packSnapshot, withSnapshotDir } from '../../src/archive/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { FIXTURE_FILES, listTree, writeSnapshot } from './snapshot-fixture.js';

const run = promisify(execFile);
const MANIFEST = '_cv-snapshot/manifest.json';

describe('withSnapshotDir', () => {
  it('runs fn on the extracted snapshot of an archive and removes the extraction afterwards', async () => {
    const base = await tempDir();
    const dir = await writeSnapshot(path.join(base, 'snap'));
    const { output } = await packSnapshot(dir);
    let seen = '';
    const tree = await withSnapshotDir(output, async (extracted) => {
      seen = extracted;
      return listTree(extracted);
    });
    expect(tree).toEqual(await listTree(dir));
    expect(seen).not.toBe(dir);
    expect(existsSync(seen)).toBe(false);
  });

  it('removes the extraction when fn throws', async () => {
    const base = await tempDir();
    const { output } = await packSnapshot(await writeSnapshot(path.join(base, 'snap')));
    let seen = '';
    const failure = withSnapshotDir(output, (extracted) => {
      seen = extracted;
      return Promise.reject(new Error('fn failed'));
    });
    await expect(failure).rejects.toThrow('fn failed');
    expect(seen).not.toBe('');
    expect(existsSync(seen)).toBe(false);
  });

  it('passes a directory through unchanged', async () => {
    const base = await tempDir();
    const dir = await writeSnapshot(path.join(base, 'snap'));
    expect(await withSnapshotDir(dir, (d) => Promise.resolve(d))).toBe(dir);
  });

  it('recognises a gzip archive by its magic bytes whatever its name', async () => {
    const base = await tempDir();
    const { output } = await packSnapshot(await writeSnapshot(path.join(base, 'snap')));
    const renamed = path.join(base, 'release-2024.bin');
    await copyFile(output, renamed);
    const manifest = await withSnapshotDir(renamed, async (d) => readFile(path.join(d, MANIFEST), 'utf8'));
    expect(manifest).toBe(FIXTURE_FILES[MANIFEST]);
  });

  it('accepts an archive made by hand with the snapshot one folder down', async () => {
    const base = await tempDir();
    const dir = await writeSnapshot(path.join(base, 'snap'));
    const archive = path.join(base, 'by-hand.tgz');
    await run('tar', ['-C', base, '-czf', archive, 'snap']);
    expect(await withSnapshotDir(archive, async (d) => listTree(d))).toEqual(await listTree(dir));
  });

  it('refuses an archive whose bytes no longer match the sidecar beside it', async () => {
    const base = await tempDir();
    const { output } = await packSnapshot(await writeSnapshot(path.join(base, 'snap')));
    // The gzip header's MTIME: gunzip does not check it, so only the sidecar notices the change.
    const bytes = await readFile(output);
    bytes[4] = 1;
    await writeFile(output, bytes);
    await expect(withSnapshotDir(output, () => Promise.resolve('ran'))).rejects.toThrow(ArchiveError);
    await expect(withSnapshotDir(output, () => Promise.resolve('ran'))).rejects.toThrow(/snap\.tar\.gz\.sha256/);
    await rename(`${output}.sha256`, path.join(base, 'moved.sha256'));
    expect(await withSnapshotDir(output, () => Promise.resolve('ran'))).toBe('ran');
  });
});
