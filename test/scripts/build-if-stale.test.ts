/**
 * `prepare` and `npm test` build dist/ only when it is not the build of the sources as they are: npx runs `prepare`
 * again when it installs the clone into its cache, and a build then would empty dist/ under the commands running it.
 * Run on a copy of what the build reads, with npm replaced by a script that records each build asked for.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { appendFile, cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const READ_BY_BUILD = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src'];

/** A copy of what the build reads with the check beside it; `run` runs the check and returns the builds asked for. */
async function copyOfClone(): Promise<{ dir: string; run: (...args: string[]) => string[] }> {
  const dir = await tempDir();
  for (const name of READ_BY_BUILD) await cp(path.join(REPO, name), path.join(dir, name), { recursive: true });
  await mkdir(path.join(dir, 'scripts'));
  await mkdir(path.join(dir, 'dist'));
  for (const script of ['build-if-stale.mjs', 'bundle-cli.mjs']) {
    await cp(path.join(REPO, 'scripts', script), path.join(dir, 'scripts', script));
  }
  const log = path.join(dir, 'npm.log');
  const npm = path.join(dir, 'fake-npm.cjs');
  await writeFile(
    npm,
    `require('node:fs').appendFileSync(${JSON.stringify(log)}, process.argv.slice(2).join(' ') + '\\n');`,
  );
  await writeFile(log, '');
  return {
    dir,
    run: (...args) => {
      const check = spawnSync(process.execPath, [path.join(dir, 'scripts', 'build-if-stale.mjs'), ...args], {
        cwd: dir,
        env: { ...process.env, npm_execpath: npm },
        encoding: 'utf8',
      });
      expect(check.status, check.stderr).toBe(0);
      return readFileSync(log, 'utf8').split('\n').filter(Boolean);
    },
  };
}

describe('the build before tests and on install', () => {
  it('builds a clone that has no build, not one built from the same sources, and again after an edit', async () => {
    const clone = await copyOfClone();
    expect(clone.run()).toEqual(['run build']);
    clone.run('--stamp'); // what npm run build ends with
    expect(clone.run()).toEqual(['run build']);
    await appendFile(path.join(clone.dir, 'src', 'version.ts'), '\n');
    expect(clone.run()).toEqual(['run build', 'run build']);
  });

  it('finds the dist/ this suite runs to be the build of the sources', async () => {
    const clone = await copyOfClone();
    await cp(path.join(REPO, 'dist', '.sources.sha256'), path.join(clone.dir, 'dist', '.sources.sha256'));
    expect(clone.run()).toEqual([]);
  });
});
