/**
 * `npm run bench:catalogue`: what the catalogue costs and how it performs, measured, never asserted.
 *
 * 1. Build time and memory: crawls of the sample API (in a process of its own) with the catalogue and with
 *    `--catalogue none`, alternating, each under GNU time: medians of wall time, CPU time and peak RSS, and the
 *    catalogue's share. The default size is about 200,000 documents and 38,000 records.
 * 2. Page weights of the last snapshot with the catalogue.
 * 3. Search latency in headless Chromium (scripts/browser.mjs) on that snapshot's front page: for every keystroke of
 *    a few queries, the time from the input event to the results laid out.
 *
 *   node scripts/catalogue-bench.mjs [--records 1084] [--runs 3] [--dir /dev/shm] [--keep]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { launchBrowser } from './browser.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(REPO, 'dist', 'cli.js');
const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1084' },
    runs: { type: 'string', default: '3' },
    dir: { type: 'string', default: '/dev/shm' },
    port: { type: 'string', default: '4170' },
    keep: { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
const QUERIES = ['kelvin', 'metre per second', 'water', 'pressure sensor', 'accepted'];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const kB = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;

function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stderr) : reject(new Error(`${args.join(' ')}: ${stderr}`))));
  });
}

/** One crawl under GNU time: wall s, CPU s (user + sys), peak RSS MB. */
async function timedCrawl(root, out, catalogue) {
  const stderr = await run('/usr/bin/time', [
    '-f',
    'TIME %e %U %S %M',
    process.execPath,
    CLI,
    'crawl',
    root,
    '--out',
    out,
    '--quiet',
    '--catalogue',
    catalogue,
  ]);
  const [wall, user, sys, rssKb] = /TIME (\S+) (\S+) (\S+) (\S+)/.exec(stderr).slice(1).map(Number);
  return { wall, cpu: user + sys, rss: rssKb / 1024 };
}

async function sizes(dir, rel = '') {
  const found = [];
  for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const file = path.posix.join(rel, entry.name);
    if (entry.isDirectory()) found.push(...(await sizes(dir, file)));
    else found.push([file, (await stat(path.join(dir, file))).size]);
  }
  return found;
}

async function waitFor(url) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer.`);
}

const base = await mkdtemp(path.join(values.dir, 'cv-catalogue-bench-'));
const api = spawn(process.execPath, [CLI, 'sample-api', '--port', values.port, '--records', values.records], {
  stdio: 'ignore',
});
const root = `http://127.0.0.1:${values.port}/sms/cv/api/v1/`;
try {
  await waitFor(root);
  console.log(`sample API --records ${values.records}; output under ${base}; ${RUNS} runs of each, alternating`);
  const figures = { html: [], none: [] };
  let kept = null;
  for (let i = 0; i < RUNS; i++) {
    for (const mode of i % 2 === 0 ? ['html', 'none'] : ['none', 'html']) {
      const out = path.join(base, `${mode}-${i}`);
      const result = await timedCrawl(root, out, mode);
      figures[mode].push(result);
      console.log(
        `  ${mode.padEnd(4)} wall ${result.wall.toFixed(1)} s  CPU ${result.cpu.toFixed(1)} s  ` +
          `peak RSS ${result.rss.toFixed(0)} MB`,
      );
      if (mode === 'html' && kept === null) kept = out;
      else await rm(`${out}.cv-snapshot`, { recursive: true, force: true }).then(() => rm(out, { force: true }));
    }
  }
  const m = (mode, key) => median(figures[mode].map((f) => f[key]));
  const share = (key) => `${(((m('html', key) - m('none', key)) / m('none', key)) * 100).toFixed(1)} %`;
  console.log('\nmedians            with catalogue   --catalogue none   catalogue adds');
  for (const [key, label, unit] of [
    ['wall', 'wall time', 's'],
    ['cpu', 'CPU time', 's'],
    ['rss', 'peak RSS', 'MB'],
  ]) {
    console.log(
      `${label.padEnd(18)} ${`${m('html', key).toFixed(1)} ${unit}`.padEnd(16)} ` +
        `${`${m('none', key).toFixed(1)} ${unit}`.padEnd(18)} ${share(key)}`,
    );
  }

  const all = await sizes(kept);
  const catalogue = all.filter(([f]) => f === 'index.html' || f.startsWith('_catalogue/'));
  const pick = (re) => catalogue.filter(([f]) => re.test(f)).map(([, size]) => size);
  const records = pick(/\/r-[^/]+\.html$/);
  const listPages = pick(/\/page-\d+\.html$/);
  const rows = pick(/\/rows\.js$/);
  const documents = all.filter(([f]) => f.startsWith('sms/')).length;
  console.log(`\npage weights (${documents} documents, ${records.length} records)`);
  console.log(
    `  catalogue: ${catalogue.length} files, ${(catalogue.reduce((s, [, b]) => s + b, 0) / 2 ** 20).toFixed(1)} MB`,
  );
  console.log(`  front page ${kB(pick(/^index\.html$/)[0])}; search index ${kB(pick(/search-index\.js$/)[0])}`);
  console.log(`  collection page: median ${kB(median(listPages))}, largest ${kB(Math.max(...listPages))}`);
  console.log(`  rows.js: median ${kB(median(rows))}, largest ${kB(Math.max(...rows))}`);
  console.log(`  record page: median ${kB(median(records))}, largest ${kB(Math.max(...records))}`);
  console.log(
    `  style.css ${kB(pick(/style\.css$/)[0])}, search.js ${kB(pick(/search\.js$/)[0])}, ` +
      `catalogue.js ${kB(pick(/catalogue\.js$/)[0])}`,
  );

  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(path.join(kept, 'index.html')).href);
    const loaded = await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd);
    const entries = await page.evaluate(() => window.cvSearchIndex.length);
    const times = await page.evaluate((queries) => {
      const input = document.getElementById('q');
      const measured = [];
      for (const query of queries) {
        for (let n = 1; n <= query.length; n++) {
          input.value = query.slice(0, n);
          const start = performance.now();
          input.dispatchEvent(new Event('input'));
          void document.body.offsetHeight; // the results laid out
          measured.push(performance.now() - start);
        }
      }
      return measured;
    }, QUERIES);
    console.log(
      `\nsearch in ${browser.version()}, ${entries} records, ${times.length} keystrokes of ` +
        `${QUERIES.map((q) => `"${q}"`).join(', ')}`,
    );
    console.log(`  front page loaded (index included) in ${loaded.toFixed(0)} ms`);
    console.log(
      `  per keystroke: median ${median(times).toFixed(1)} ms, 95th percentile ` +
        `${quantile(times, 0.95).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`,
    );
  } finally {
    await browser.close();
  }
} finally {
  api.kill();
  if (!values.keep) await rm(base, { recursive: true, force: true });
  else console.log(`kept ${base}`);
}
