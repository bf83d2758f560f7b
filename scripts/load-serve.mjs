#!/usr/bin/env node
/**
 * npm run load:serve — 200 concurrent clients fetch random documents of one snapshot for 20 s from
 * `cv-snapshot serve`, then from plain `serve` on the same tree (autocannon, 127.0.0.1 only). Every answer is
 * checked against the stored bytes; any error, timeout, non-200 or wrong byte makes the run fail. Prints requests
 * per second of both. Bounded: `--duration s` (default 20), `--connections n` (default 200), `--records n`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createSnapshot, Layout, readManifest, startSampleApi } from '../dist/index.js';

const require = createRequire(import.meta.url);
const project = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '20' },
    connections: { type: 'string', default: '200' },
    records: { type: 'string', default: '60' },
  },
});
const duration = Math.min(600, Number(values.duration));
const connections = Math.min(1000, Number(values.connections));

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/** @param {string} url */
async function waitFor(url) {
  for (let i = 0; i < 300; i += 1) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${url} never answered`);
}

/**
 * Served path → the exact text the server must answer.
 * @param {string} dir
 * @param {boolean} bareCollectionIsPageOne
 * @returns {Promise<Map<string, string>>}
 */
async function expectations(dir, bareCollectionIsPageOne) {
  const manifest = await readManifest(dir);
  const layout = new Layout(manifest.source.root);
  const sums = await readFile(path.join(dir, '_cv-snapshot', 'SHA256SUMS'), 'utf8');
  const prefix = `${layout.rootSegments().join('/')}/`;
  const expected = new Map();
  for (const line of sums.split('\n')) {
    const file = line.slice(66);
    if (!file.startsWith(prefix)) continue;
    let source = file;
    if (bareCollectionIsPageOne && layout.isCollectionIndexFile(file))
      source = file.replace(/index\.html$/, 'page/1/index.html');
    expected.set(layout.servedPathOfFile(file), await readFile(path.join(dir, ...source.split('/')), 'utf8'));
  }
  return expected;
}

/**
 * @param {string} name
 * @param {string} origin
 * @param {Map<string, string>} expected
 */
async function load(name, origin, expected) {
  const paths = [...expected.keys()];
  const wrong = { count: 0, first: '' };
  const result = await autocannon({
    url: origin,
    connections,
    duration,
    requests: [
      {
        setupRequest: (request, context) => {
          context.path = paths[Math.floor(Math.random() * paths.length)];
          return { ...request, path: context.path };
        },
        onResponse: (status, body, context) => {
          if (status === 200 && context.path !== undefined && body === expected.get(context.path)) return;
          wrong.count += 1;
          if (wrong.count === 1) wrong.first = `${context.path}: ${status} ${String(body).slice(0, 120)}`;
        },
      },
    ],
  });
  const summary = {
    server: name,
    requestsPerSecond: Math.round(result.requests.average),
    requests: result.requests.total,
    latencyP99Ms: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    wrongBodies: wrong.count,
  };
  console.log(JSON.stringify(summary));
  if (wrong.count > 0) console.log(`  first wrong answer: ${wrong.first}`);
  return summary.errors + summary.timeouts + summary.non2xx + summary.wrongBodies === 0;
}

/**
 * @param {string} command
 * @param {string[]} args
 */
function start(command, args) {
  const child = spawn(process.execPath, [command, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NO_UPDATE_CHECK: '1' },
  });
  child.stdout.resume();
  return child;
}

/**
 * @param {import('node:child_process').ChildProcess} child
 * @returns {Promise<void>}
 */
function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

const base = await mkdtemp(path.join(os.tmpdir(), 'cv-snapshot-load-'));
let ok = true;
try {
  const api = await startSampleApi({ records: Number(values.records), pageSize: 10, seed: 1 });
  const dir = path.join(base, 'out');
  await createSnapshot({ rootUrl: api.rootUrl, out: dir, concurrency: 16 });
  await api.close();
  console.log(
    `snapshot: ${dir}; ${connections} connections for ${duration} s per server, random documents, bodies checked`,
  );

  const ourPort = await freePort();
  const ours = start(path.join(project, 'dist', 'cli.js'), ['serve', dir, '--port', String(ourPort), '--quiet']);
  await waitFor(`http://127.0.0.1:${ourPort}/`);
  ok = (await load('cv-snapshot serve', `http://127.0.0.1:${ourPort}`, await expectations(dir, true))) && ok;
  await stop(ours);

  const servePort = await freePort();
  const serveBin = path.join(path.dirname(require.resolve('serve/package.json')), 'build', 'main.js');
  const plain = start(serveBin, [
    dir,
    '--listen',
    `tcp://127.0.0.1:${servePort}`,
    '--no-clipboard',
    '--no-request-logging',
  ]);
  await waitFor(`http://127.0.0.1:${servePort}/`);
  ok = (await load('serve', `http://127.0.0.1:${servePort}`, await expectations(dir, false))) && ok;
  await stop(plain);
} finally {
  await rm(base, { recursive: true, force: true });
}
if (!ok) {
  console.error('load:serve: some answers were errors or wrong bytes.');
  process.exit(1);
}
