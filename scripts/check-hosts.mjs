#!/usr/bin/env node
/**
 * npm run check:hosts — the static-host checks that need programs of their own: Cloudflare's local engine
 * `wrangler pages dev`, and nginx with the recipe of docs/hosting.md where nginx is installed
 * (test/serve/external-hosts.check.ts). `npx serve` and serve-handler are checked by `npm test`.
 *
 * wrangler and the Node 22 it needs (the npm package node-<os>-<arch>@22 ships the binary) are about 380 MB, so they
 * are not dev dependencies: every `npm ci` would pay for them, and a `node` 22 binary in node_modules/.bin would
 * shadow the project's Node 20 in every npm script. They are installed once, with npm, into
 * node_modules/.cache/cv-snapshot-hosts, and run offline (WRANGLER_SEND_METRICS=false).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const project = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tools = path.join(project, 'node_modules', '.cache', 'cv-snapshot-hosts');
const WRANGLER = 'wrangler@4';
const NODE22 = `node-${process.platform}-${process.arch}@22`;

const wrangler = path.join(tools, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const node22 =
  Number(process.versions.node.split('.')[0]) >= 22
    ? process.execPath
    : path.join(tools, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');

/**
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} [options]
 */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: project, ...options });
  if (result.status !== 0) {
    console.error(`check:hosts: ${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal}).`);
    process.exit(result.status ?? 1);
  }
}

if (!existsSync(wrangler) || !existsSync(node22)) {
  console.error(`check:hosts: installing ${WRANGLER} and ${NODE22} into ${path.relative(project, tools)} (once)`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  run(npm, [
    'install',
    '--prefix',
    tools,
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--loglevel',
    'error',
    WRANGLER,
    NODE22,
  ]);
}

if (spawnSync('nginx', ['-v']).status !== 0) {
  console.error('check:hosts: nginx is not installed (apt-get install nginx), so the nginx recipe is not checked.');
}
const vitest = path.join(project, 'node_modules', 'vitest', 'vitest.mjs');
run(process.execPath, [vitest, 'run', '--config', 'vitest.hosts.config.ts'], {
  env: { ...process.env, CV_SNAPSHOT_WRANGLER: wrangler, CV_SNAPSHOT_NODE22: node22, WRANGLER_SEND_METRICS: 'false' },
});
