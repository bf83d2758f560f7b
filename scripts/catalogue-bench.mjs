/**
 * `npm run bench:catalogue`: what the catalogue costs and how it performs, measured, never asserted.
 *
 * 1. Build time and memory: crawls of the sample API (in a process of its own) with the catalogue and with
 *    `--catalogue none`, alternating, each under GNU time: medians of wall time, CPU time and peak RSS, and the
 *    catalogue's share. The default size is about 200,000 documents and 38,000 records.
 * 2. Page weights of the last snapshot with the catalogue.
 * 3. Search latency in headless Chromium (scripts/browser.mjs) on that snapshot's front page: for every keystroke of
 *    a few queries, the time from the input event to the results laid out, typed into a freshly loaded page in each
 *    of several runs.
 *
 *   node scripts/catalogue-bench.mjs [--records 1084] [--runs 3] [--typing-runs 5] [--dir /dev/shm] [--keep]
 *   node scripts/catalogue-bench.mjs --snapshot <dir>     # 2 and 3 only, on a snapshot made before
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { readManifest } from '../dist/index.js';
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
    snapshot: { type: 'string' },
    'typing-runs': { type: 'string', default: '5' },
  },
});
const RUNS = Number(values.runs);
const TYPING_RUNS = Number(values['typing-runs']);
// The last two are mistyped: the keystrokes past the typo find nothing and run the correction (cvCorrect).
const QUERIES = ['kelvin', 'metre per second', 'water', 'pressure sensor', 'accepted', 'kelvn', 'presure sensro'];

/** @param {number[]} xs */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? Number(s[(s.length - 1) / 2]) : (Number(s[s.length / 2 - 1]) + Number(s[s.length / 2])) / 2;
};
/** @param {number[]} xs @param {number} q */
const quantile = (xs, q) => Number([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]);
/** @param {number | undefined} bytes */
const kB = (bytes) => `${(Number(bytes) / 1024).toFixed(1)} kB`;

/** @param {string} command @param {string[]} args @returns {Promise<string>} */
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
/**
 * @param {string} root @param {string} out @param {string} catalogue
 * @returns {Promise<{ wall: number, cpu: number, rss: number }>}
 */
async function timedCrawl(root, out, catalogue) {
  const stderr = await run('/usr/bin/time', [
    '-f',
    'TIME %e %U %S %M',
    CLI, // run as the installed executable runs: through its first line, with its heap settings
    'crawl',
    root,
    '--out',
    out,
    '--quiet',
    '--catalogue',
    catalogue,
  ]);
  const [wall = 0, user = 0, sys = 0, rssKb = 0] = (/TIME (\S+) (\S+) (\S+) (\S+)/.exec(stderr) ?? [])
    .slice(1)
    .map(Number);
  return { wall, cpu: user + sys, rss: rssKb / 1024 };
}

/** [path, bytes] of every file under `rel` (iterative: a snapshot holds hundreds of thousands). */
/** @param {string} dir @param {string} rel @returns {Promise<Array<[string, number]>>} */
async function sizes(dir, rel) {
  /** @type {Array<[string, number]>} */
  const found = [];
  const pending = [rel];
  while (pending.length > 0) {
    const at = /** @type {string} */ (pending.pop());
    for (const entry of await readdir(path.join(dir, at), { withFileTypes: true })) {
      const file = path.posix.join(at, entry.name);
      if (entry.isDirectory()) pending.push(file);
      else found.push([file, (await stat(path.join(dir, file))).size]);
    }
  }
  return found;
}

/** @param {string} url */
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
const given = values.snapshot;
const api =
  given === undefined
    ? spawn(process.execPath, [CLI, 'sample-api', '--port', values.port, '--records', values.records], {
        stdio: 'ignore',
      })
    : null;
const root = `http://127.0.0.1:${values.port}/sms/cv/api/v1/`;
/** @type {string | null} */
let kept = given === undefined ? null : path.resolve(given);
try {
  if (api !== null) await crawls();
  if (kept === null) throw new Error('No snapshot with the catalogue was kept.');
  await measure(kept);
} finally {
  api?.kill();
  if (!values.keep) await rm(base, { recursive: true, force: true });
  else console.log(`kept ${base}`);
}

/** Part 1: the crawls, alternating; keeps the first snapshot with the catalogue for the rest. */
async function crawls() {
  await waitFor(root);
  console.log(`sample API --records ${values.records}; output under ${base}; ${RUNS} runs of each, alternating`);
  /** @type {Record<string, Array<{ wall: number, cpu: number, rss: number }>>} */
  const figures = { html: [], none: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const mode of i % 2 === 0 ? ['html', 'none'] : ['none', 'html']) {
      const out = path.join(base, `${mode}-${i}`);
      const result = await timedCrawl(root, out, mode);
      figures[mode]?.push(result);
      console.log(
        `  ${mode.padEnd(4)} wall ${result.wall.toFixed(1)} s  CPU ${result.cpu.toFixed(1)} s  ` +
          `peak RSS ${result.rss.toFixed(0)} MB`,
      );
      if (mode === 'html' && kept === null) kept = out;
      else await rm(`${out}.cv-snapshot`, { recursive: true, force: true }).then(() => rm(out, { force: true }));
    }
  }
  /** @param {string} mode @param {'wall' | 'cpu' | 'rss'} key */
  const m = (mode, key) => median((figures[mode] ?? []).map((f) => f[key]));
  /** @param {'wall' | 'cpu' | 'rss'} key */
  const share = (key) => `${(((m('html', key) - m('none', key)) / m('none', key)) * 100).toFixed(1)} %`;
  console.log('\nmedians            with catalogue   --catalogue none   catalogue adds');
  for (const [key, label, unit] of /** @type {const} */ ([
    ['wall', 'wall time', 's'],
    ['cpu', 'CPU time', 's'],
    ['rss', 'peak RSS', 'MB'],
  ])) {
    console.log(
      `${label.padEnd(18)} ${`${m('html', key).toFixed(1)} ${unit}`.padEnd(16)} ` +
        `${`${m('none', key).toFixed(1)} ${unit}`.padEnd(18)} ${share(key)}`,
    );
  }
}

/** Parts 2 and 3: page weights and search latency. @param {string} snapshot */
async function measure(snapshot) {
  /** @type {Array<[string, number]>} */
  const catalogue = [
    ['index.html', (await stat(path.join(snapshot, 'index.html'))).size],
    ...(await sizes(snapshot, '_catalogue')),
  ];
  /** @param {RegExp} re */
  const pick = (re) => catalogue.filter(([f]) => re.test(f)).map(([, size]) => size);
  /** @param {RegExp} re */
  const one = (re) => kB(pick(re)[0]);
  /** @param {string} label @param {RegExp} re */
  const spread = (label, re) => {
    const found = pick(re);
    return `  ${label}: ${found.length}, median ${kB(median(found))}, largest ${kB(Math.max(...found))}`;
  };
  const manifest = await readManifest(snapshot);
  const total = catalogue.reduce((sum, [, bytes]) => sum + bytes, 0);
  console.log(`\npage weights (${manifest.documents} documents)`);
  console.log(`  catalogue: ${catalogue.length} files, ${(total / 2 ** 20).toFixed(1)} MB`);
  console.log(`  front page ${one(/^index\.html$/)}; search index ${one(/search-index\.js$/)}`);
  console.log(spread('collection pages', /\/page-\d+\.html$/));
  console.log(spread('rows.js', /\/rows\.js$/));
  console.log(spread('record pages', /\/r-[^/]+\.html$/));
  console.log(
    `  style.css ${one(/style\.css$/)}, search.js ${one(/\/search\.js$/)}, catalogue.js ${one(/catalogue\.js$/)}`,
  );

  const browser = await launchBrowser();
  try {
    // Each run types every query into a freshly loaded front page (nothing kept from the run before), once the page
    // is idle, as a person starts typing after the page shows: on a machine shared with other work, the fastest run
    // of each keystroke is the nearest to what a quiet machine takes, and every keystroke of every run is reported too.
    /** @type {number[][]} */
    const runs = [];
    let loaded = 0;
    let entries = 0;
    for (let run = 0; run < TYPING_RUNS; run++) {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(path.join(snapshot, 'index.html')).href);
      // Run in the page (strings: the page's globals are not this program's).
      loaded = Number(await page.evaluate(`performance.getEntriesByType('navigation')[0].loadEventEnd`));
      entries = Number(await page.evaluate('window.cvSearchIndex.length'));
      await page.evaluate(`new Promise((resolve) => (window.requestIdleCallback || setTimeout)(() => resolve(0)))`);
      runs.push(
        /** @type {number[]} */ (
          await page.evaluate(`(() => {
        const input = document.getElementById('q');
        const measured = [];
        for (const query of ${JSON.stringify(QUERIES)}) {
          for (let n = 1; n <= query.length; n++) {
            input.value = query.slice(0, n);
            const start = performance.now();
            input.dispatchEvent(new Event('input'));
            void document.body.offsetHeight; // the results laid out
            measured.push(performance.now() - start);
          }
        }
        return measured;
      })()`)
        ),
      );
      await page.close();
    }
    const times = runs.flat();
    const fastest = (runs[0] ?? []).map((_, i) => Math.min(...runs.map((r) => Number(r[i]))));
    /** @param {number[]} xs */
    const figures = (xs) =>
      `median ${median(xs).toFixed(1)} ms, 95th percentile ${quantile(xs, 0.95).toFixed(1)} ms, ` +
      `max ${Math.max(...xs).toFixed(1)} ms`;
    console.log(
      `\nsearch in ${browser.version()}, ${entries} records, ${fastest.length} keystrokes of ` +
        `${QUERIES.map((q) => `"${q}"`).join(', ')}, ${TYPING_RUNS} runs`,
    );
    console.log(`  front page loaded (index included) in ${loaded.toFixed(0)} ms`);
    runs.forEach((r, i) => console.log(`  per keystroke, run ${i + 1}: ${figures(r)}`));
    console.log(`  per keystroke, every run: ${figures(times)}`);
    console.log(`  per keystroke, its fastest run: ${figures(fastest)}`);
  } finally {
    await browser.close();
  }
}
