#!/usr/bin/env node
/**
 * Builds dist/ (npm run build) unless it already holds the build of these sources; `--stamp` records, after a build,
 * which sources it was made from (dist/.sources.sha256: a hash of every file the build reads).
 *
 * Why: `prepare` runs on `npm ci`, and again each time npx installs this clone into its cache (the first `npx
 * cv-snapshot` of a clone, or of a new npx cache). An unconditional build there empties dist/ while the command the
 * user asked for, or a test of the suite, runs it; with this check, a clone that is built builds nothing again.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = path.join(REPO, 'dist', '.sources.sha256');
/** What the build reads besides src/: its configuration, its bundler step, and the dependencies the bundle holds. */
const INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/bundle-cli.mjs'];

/**
 * @param {string} dir relative to the repository
 * @returns {Generator<string>} the files under it, relative to the repository
 */
function* filesUnder(dir) {
  for (const entry of readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) yield* filesUnder(relative);
    else yield relative;
  }
}

function sourcesHash() {
  const hash = createHash('sha256');
  for (const file of [...INPUTS, ...filesUnder('src')].sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(REPO, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

if (process.argv.includes('--stamp')) {
  writeFileSync(STAMP, `${sourcesHash()}\n`);
} else if (!existsSync(STAMP) || readFileSync(STAMP, 'utf8').trim() !== sourcesHash()) {
  const npm = process.env.npm_execpath;
  const build = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: REPO, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { cwd: REPO, stdio: 'inherit' });
  process.exitCode = build.status ?? 1;
}
