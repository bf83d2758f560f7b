#!/usr/bin/env node
/**
 * npm run docs:examples — runs the commands the README and docs/ show against the embedded sample API and rewrites
 * their example blocks (between `<!-- example:<name> -->` and `<!-- /example:<name> -->`, each in one of
 * `EXAMPLE_PAGES`) with what they printed. test/scripts/readme-examples.test.ts runs the same commands and fails when
 * a block is out of date.
 *
 * The story the blocks tell, the README's tour: crawl release 0 of the sample data set into cv-mirror, verify it, pack
 * it, then crawl the "next release" (release 1) into the same --out, diff the archive against it and serve it. Both
 * sample APIs listen on 127.0.0.1:4100, one after the other, as one service changing between two crawls would.
 * Everything is run with SOURCE_DATE_EPOCH set, so the snapshots, the archive and its SHA-256 are the same on every
 * run.
 *
 * Only this is changed after the fact: the temporary directory the commands run in is shown as `~`, the crawl's
 * table shows its first rows and the total, the diff one collection, and a line longer than the pages' 120
 * columns is cut there with `…`. Durations and request rates (of the crawl, of each request `serve` logs) are
 * printed as the run gave them; the test ignores them when it compares.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startSampleApi } from '../dist/index.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(REPO, 'dist', 'cli.js');
/** The pages that hold example blocks: the README's tour, the second crawl (docs/snapshot.md), the library. */
export const EXAMPLE_PAGES = ['README.md', 'docs/snapshot.md', 'docs/library.md', 'docs/vocabulary-export.md'].map(
  (page) => path.join(REPO, page),
);

/** How the pages run the command line: in a clone after `npm ci`, as the README's tour does. */
const PROGRAM = 'npx cv-snapshot';
/** The port the examples show; `produceExamples` takes another when this one is taken. */
export const EXAMPLE_PORT = 4100;
/** 2025-03-01T00:00:00Z: the one time the snapshots record. */
const SOURCE_DATE_EPOCH = '1740787200';
/** Small enough to run in seconds; release 1 needs at least 5. */
const RECORDS = 5;
/** Rows of the crawl's per-collection table that the README shows (the rest are elided as `…`). */
const TABLE_ROWS = 3;
/** What the serve example asks, below the API root: a query only `serve` answers, the root, a missing page. */
const SERVE_REQUESTS = [
  'siteusages/?filter[status.iexact]=accepted&sort=-term&include=site_types',
  '',
  'units/?page[number]=9',
];
/** The export example (docs/vocabulary-export.md): one small collection as Turtle, of which the first nodes show. */
const EXPORT_ARGS = ['export', 'cv-mirror', '--format', 'turtle', '--output', '-', '--collection', 'siteusages'];
const EXPORT_NODES = 3;
/** The pages' line width: a longer output line is cut there and ends in `…`. */
const WIDTH = 120;

/** The library example (examples/library.mjs), shown in docs/library.md with what it prints. */
const LIBRARY_EXAMPLE = path.join(REPO, 'examples', 'library.mjs');
/** The language of a block's code fence, where it is not plain output. */
const FENCES = new Map([['library-source', 'js']]);

/** @param {string} name */
export const beginMarker = (name) => `<!-- example:${name} -->`;
/** @param {string} name */
export const endMarker = (name) => `<!-- /example:${name} -->`;

/**
 * Runs `node dist/cli.js ...args` in `cwd`; resolves with its exit code and output.
 * @param {string[]} args
 * @param {string} cwd
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function run(args, cwd) {
  return runNode([CLI, ...args], cwd);
}

/**
 * Runs `node ...args` in `cwd`, with SOURCE_DATE_EPOCH set.
 * @param {string[]} args
 * @param {string} cwd
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function runNode(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, SOURCE_DATE_EPOCH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs a command that must succeed; returns its stdout.
 * @param {string[]} args
 * @param {string} cwd
 */
async function succeed(args, cwd) {
  const result = await run(args, cwd);
  if (result.code !== 0) {
    throw new Error(`cv-snapshot ${args.join(' ')} exited ${result.code}:\n${result.stderr}${result.stdout}`);
  }
  return result.stdout;
}

/**
 * Crawls release `release` of the sample data set, served on `port`, into `cwd/cv-mirror`.
 * @param {number} release
 * @param {number} port
 * @param {string} cwd
 * @returns {Promise<{ stdout: string, root: string }>}
 */
async function crawlRelease(release, port, cwd) {
  const api = await startSampleApi({ port, records: RECORDS, release, logRequests: false });
  try {
    const stdout = await succeed(['crawl', api.rootUrl, '--out', 'cv-mirror', '--quiet'], cwd);
    return { stdout, root: api.rootUrl };
  } finally {
    await api.close();
  }
}

/**
 * The crawl's closing summary with the per-collection table cut to its first rows and the total.
 * @param {string} summary
 */
function shortenTable(summary) {
  const lines = summary.split('\n');
  const rule = lines.findIndex((line) => line.startsWith('------'));
  if (rule < 0) return summary;
  return [...lines.slice(0, 1 + TABLE_ROWS), '…', ...lines.slice(rule)].join('\n');
}

/**
 * The export's prefixes and first nodes (the scheme, then concepts), the rest elided as `…`.
 * @param {string} turtle
 */
function exportHead(turtle) {
  const blocks = turtle.trimEnd().split('\n\n');
  return [...blocks.slice(0, 1 + EXPORT_NODES), '…'].join('\n\n');
}

/**
 * One `## <collection>` section of the diff's Markdown, down to the next one.
 * @param {string} markdown
 * @param {string} collection
 */
function diffSection(markdown, collection) {
  const start = markdown.indexOf(`\n## ${collection}\n`);
  if (start < 0) throw new Error(`the diff has no section for ${collection}:\n${markdown}`);
  const next = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start + 1, next < 0 ? undefined : next).trimEnd();
}

/**
 * Runs `cv-snapshot serve cv-mirror --port <port>` in `cwd`, sends it `paths` (below the API root) one after the
 * other, stops it with SIGINT, and returns its stdout line and its request log.
 * @param {number} port
 * @param {string} cwd
 * @param {string[]} paths
 * @returns {Promise<{ url: string, log: string }>}
 */
function serveExample(port, cwd, paths) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', 'cv-mirror', '--port', String(port)], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let asked = false;
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
      if (asked || !stdout.includes('\n')) return;
      asked = true;
      const url = stdout.slice(0, stdout.indexOf('\n'));
      void (async () => {
        for (const request of paths) await (await fetch(`${url}${request}`)).arrayBuffer();
        child.kill('SIGINT');
      })().catch(reject);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`cv-snapshot serve exited ${code}:\n${stderr}`));
      else resolve({ url: stdout.trim(), log: stderr.trimEnd() });
    });
  });
}

/**
 * Runs the example commands in a temporary directory and returns each block's text, by name.
 * @param {{ port?: number }} [options]
 * @returns {Promise<Map<string, string>>}
 */
export async function produceExamples(options = {}) {
  const port = options.port ?? EXAMPLE_PORT;
  const cwd = await mkdtemp(path.join(os.tmpdir(), 'cv-snapshot-examples-'));
  /** @param {string} text */
  const local = (text) => text.split(cwd).join('~').trimEnd();
  /** @param {string} line */
  const fit = (line) => (line.length > WIDTH ? `${line.slice(0, WIDTH - 1)}…` : line);
  try {
    // The library example needs nothing from the commands below: it runs meanwhile, with a sample API of its own.
    const libraryRun = runNode([LIBRARY_EXAMPLE], REPO);
    /** @type {Map<string, string[]>} */
    const blocks = new Map();
    const first = await crawlRelease(0, port, cwd);
    blocks.set('crawl', [`$ ${PROGRAM} crawl ${first.root} --out cv-mirror`, shortenTable(local(first.stdout))]);
    blocks.set('verify', [`$ ${PROGRAM} verify cv-mirror`, local(await succeed(['verify', 'cv-mirror'], cwd))]);
    const packed = await succeed(['pack', 'cv-mirror', '--output', 'cv-2025-03.tar.gz'], cwd);
    blocks.set('pack', [`$ ${PROGRAM} pack cv-mirror --output cv-2025-03.tar.gz`, local(packed)]);
    const exported = await succeed(EXPORT_ARGS, cwd);
    blocks.set('export', [`$ ${PROGRAM} ${EXPORT_ARGS.join(' ')}`, exportHead(exported)]);
    const second = await crawlRelease(1, port, cwd);
    // What the second publish left beside --out, read from the file system as `readlink` and `ls -A` show it.
    const generations = (await readdir(path.join(cwd, 'cv-mirror.cv-snapshot'))).sort();
    blocks.set('crawl-again', [
      `$ ${PROGRAM} crawl ${second.root} --out cv-mirror > /dev/null`,
      '$ readlink cv-mirror',
      await readlink(path.join(cwd, 'cv-mirror')),
      '$ ls -A cv-mirror.cv-snapshot',
      ...generations,
    ]);
    // What the second crawl ends with: what changed since the snapshot it replaced.
    blocks.set('crawl-next', [
      `$ ${PROGRAM} crawl ${second.root} --out cv-mirror | tail -n 1`,
      second.stdout.trimEnd().split('\n').at(-1) ?? '',
    ]);
    const served = await serveExample(port, cwd, SERVE_REQUESTS);
    blocks.set('serve', [`$ ${PROGRAM} serve cv-mirror --port ${port}`, served.url, served.log]);
    // The Markdown diff names the two snapshots (their roots, times) first; the README shows one collection.
    const diff = await succeed(['diff', 'cv-2025-03.tar.gz', 'cv-mirror'], cwd);
    blocks.set('diff', [`$ ${PROGRAM} diff cv-2025-03.tar.gz cv-mirror`, '…', diffSection(local(diff), 'siteusages')]);
    const library = await libraryRun;
    if (library.code !== 0) throw new Error(`node examples/library.mjs exited ${library.code}:\n${library.stderr}`);
    blocks.set('library-source', [(await readFile(LIBRARY_EXAMPLE, 'utf8')).trimEnd()]);
    blocks.set('library', ['$ node examples/library.mjs', library.stdout.trimEnd()]);
    return new Map([...blocks].map(([name, lines]) => [name, lines.join('\n').split('\n').map(fit).join('\n')]));
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

/**
 * A page's text with every example block replaced by `examples`, and which blocks were missing or differed.
 * `comparable` maps a block's text to what is compared (the test ignores durations with it).
 * @param {string} readme a page's text
 * @param {Map<string, string>} examples
 * @param {(text: string) => string} [comparable]
 * @returns {{ text: string, missing: string[], stale: string[] }}
 */
export function updateExamples(readme, examples, comparable = (text) => text) {
  let text = readme;
  const missing = [];
  const stale = [];
  for (const [name, output] of examples) {
    const begin = text.indexOf(beginMarker(name));
    const end = text.indexOf(endMarker(name));
    if (begin < 0 || end < begin) {
      missing.push(name);
      continue;
    }
    const from = begin + beginMarker(name).length;
    const block = `\n\`\`\`${FENCES.get(name) ?? ''}\n${output}\n\`\`\`\n`;
    if (comparable(text.slice(from, end)) !== comparable(block)) stale.push(name);
    text = text.slice(0, from) + block + text.slice(end);
  }
  return { text, missing, stale };
}

/**
 * What varies between two runs of the same commands, masked: durations and request rates.
 * @param {string} text
 */
export function withoutTimings(text) {
  return text.replace(/ in [0-9.]+ s \([0-9,]+ req\/s,/g, ' in <s> s (<n> req/s,').replace(/ [0-9.]+ms$/gm, ' <t>ms');
}

/**
 * Every page with its example blocks replaced by `examples` (a block is looked for in each page; the pages that
 * hold none are returned as they were), and which blocks no page holds or differed.
 * @param {Map<string, string>} pages the text of each page, by path
 * @param {Map<string, string>} examples
 * @param {(text: string) => string} [comparable]
 * @returns {{ pages: Map<string, string>, missing: string[], stale: string[] }}
 */
export function updateExamplePages(pages, examples, comparable) {
  /** @type {Map<string, string>} */
  const updated = new Map();
  const found = new Set();
  const stale = [];
  for (const [page, text] of pages) {
    const held = new Map([...examples].filter(([name]) => text.includes(beginMarker(name))));
    const result = updateExamples(text, held, comparable);
    updated.set(page, result.text);
    stale.push(...result.stale);
    for (const name of held.keys()) if (!result.missing.includes(name)) found.add(name);
  }
  return { pages: updated, missing: [...examples.keys()].filter((name) => !found.has(name)), stale };
}

/**
 * The text of each of `EXAMPLE_PAGES`, by path.
 * @returns {Promise<Map<string, string>>}
 */
export async function readExamplePages() {
  /** @type {Map<string, string>} */
  const pages = new Map();
  for (const page of EXAMPLE_PAGES) pages.set(page, await readFile(page, 'utf8'));
  return pages;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const examples = await produceExamples();
  const pages = await readExamplePages();
  const { pages: updated, missing, stale } = updateExamplePages(pages, examples);
  for (const [page, text] of updated) if (text !== pages.get(page)) await writeFile(page, text);
  console.log(stale.length > 0 ? `Rewrote the examples: ${stale.join(', ')}.` : 'Every example was up to date.');
  for (const name of missing) {
    console.error(
      `No page holds the block "${name}": add the lines ${beginMarker(name)} and ${endMarker(name)} to one of ` +
        `${EXAMPLE_PAGES.map((page) => path.relative(REPO, page)).join(', ')}.`,
    );
  }
  if (missing.length > 0) process.exitCode = 1;
}
