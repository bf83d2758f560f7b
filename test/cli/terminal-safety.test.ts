/**
 * Text that came from a source never reaches a terminal raw (README "Safety"): type names, ids, collection names,
 * terms and URLs carrying escape sequences, C1 controls or bidirectional overrides are shown as `\u` escapes in
 * every command's output, human or JSON.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../../src/serve/index.js';
import { runMain, type CliResult } from '../helpers/cli.js';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { getJson, listFiles } from '../helpers/snapshot.js';
import { serveWarnings } from '../helpers/serve-warnings.js';
import { suiteDir } from '../helpers/temp-dir.js';

/** Sets the terminal's title, clears the screen, turns text red; a C1 CSI and a right-to-left override. */
const ATTACK = '\u001b]0;pwned\u0007\u001b[2J\u001b[31mRED\u009b2J\u202e';
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let term = 'first';

/** Its own server: every name it serves carries the attack, its records' type too, which the builder derives. */
function hostileSource(): Promise<TestServer> {
  return startServer((req, res) => {
    const base = `http://${req.headers.host}/api/`;
    const record = (id: string) => ({
      type: `Unit${ATTACK}`,
      id,
      attributes: { term: `${term}${ATTACK}` },
      relationships: {},
      links: { self: `${base}units/${id}/` },
    });
    if (req.url === '/api/') {
      return sendJson(res, 200, {
        data: { units: `${base}units/`, [`col${ATTACK}`]: `${base}gone${encodeURIComponent(ATTACK)}/` },
      });
    }
    if (req.url === '/api/units/') {
      return sendJson(res, 200, {
        links: { first: `${base}units/`, last: `${base}units/`, next: null, prev: null },
        data: [record('1'), record(`2${ATTACK}`)],
        meta: { pagination: { page: 1, pages: 1, count: 2 } },
      });
    }
    if (req.url === '/api/units/1/') return sendJson(res, 200, { data: record('1') });
    sendJson(res, 404, { errors: [{ status: '404', detail: ATTACK }] });
  });
}

function expectPrintable(result: CliResult): void {
  expect(result.stdout, 'stdout').not.toMatch(RAW);
  expect(result.stderr, 'stderr').not.toMatch(RAW);
}

let work: { dir: string; remove: () => Promise<void> };
let source: TestServer;
let first: string;
let second: string;

beforeAll(async () => {
  work = await suiteDir();
  source = await hostileSource();
  first = path.join(work.dir, 'first');
  second = path.join(work.dir, 'second');
});

afterAll(async () => {
  await source.close();
  await work.remove();
});

describe('output that quotes a hostile source', () => {
  it('crawl: the closing summary escapes type names, and --json escapes what JSON.stringify leaves', async () => {
    const table = await runMain(['crawl', `${source.url}/api/`, '--out', first, '--quiet']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('Unit\\u001b]0;pwned\\u0007');
    expectPrintable(table);
    term = 'second';
    const json = await runMain(['crawl', `${source.url}/api/`, '--out', second, '--json', '--quiet']);
    expect(json.code).toBe(0);
    expectPrintable(json);
  });

  it('verify and diff print it escaped too', async () => {
    for (const args of [
      ['verify', first],
      ['verify', first, '--json'],
      ['diff', first, second],
      ['diff', first, second, '--format', 'json'],
    ]) {
      const result = await runMain(args);
      expect(result.code, args.join(' ')).toBe(0);
      expectPrintable(result);
    }
    const diff = await runMain(['diff', first, second]);
    expect(diff.stdout).toContain('\\u001b');
  });

  it('a foreign file named with controls is reported escaped', async () => {
    await mkdir(path.join(first, 'api', 'units'), { recursive: true });
    await writeFile(path.join(first, 'api', 'units', `x${ATTACK.replaceAll('\u0007', '')}`), '{}');
    const result = await runMain(['verify', first]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('\\u001b[2J');
    expectPrintable(result);
  });

  it('an error that names a hostile URL is escaped', async () => {
    const result = await runMain([
      'crawl',
      `${source.url}/api/gone${encodeURIComponent(ATTACK)}/`,
      '--out',
      path.join(work.dir, 'x'),
    ]);
    expect(result.code).not.toBe(0);
    expectPrintable(result);
  });
});

describe('serve', () => {
  it('warns of a stored file it cannot parse without quoting its controls raw', async () => {
    const pages = (await listFiles(first)).filter((file) => /^api\/units\/(page\/\d+\/)?index\.html$/.test(file));
    expect(pages.length).toBeGreaterThan(0);
    // V8's parse error quotes the text it failed on; a snapshot from elsewhere may hold anything.
    for (const file of pages) await writeFile(path.join(first, file), `[${ATTACK}]`);
    const warnings = await serveWarnings(first, async (server) => {
      const answer = await getJson(`${server.url}units/?sort=term`);
      expect(answer.status).toBe(500);
    });
    const warned = warnings.join('\n');
    expect(warned).toContain('\\u001b]0;pwned');
    expect(warned).not.toMatch(RAW);
    // A damaged snapshot is not a fault of serve's: a sentence naming the file and what to run, no stack.
    expect(warned).toMatch(/the snapshot's file api\/units\/(page\/\d+\/)?index\.html is not valid JSON/);
    expect(warned).toContain('run cv-snapshot verify on it');
    expect(warned).not.toMatch(/\n\s+at /);
  });

  it('refuses a root index that is not JSON with a sentence, and serves one of another shape', async () => {
    const rootIndex = path.join(second, 'api', 'index.html');
    await writeFile(rootIndex, `[${ATTACK}`);
    const refused = await runMain(['serve', second, '--port', '0']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`cannot be served: its root index api/index.html is not valid JSON (`);
    expect(refused.stderr).toContain('cv-snapshot verify');
    expect(refused.stderr).not.toContain('unexpected failure');
    expectPrintable(refused);
    // JSON, but no object: it names no collection, and the files are served all the same.
    await writeFile(rootIndex, 'null');
    const server = await startServe({ dir: second, port: 0 });
    try {
      expect((await getJson(`${server.url}units/1/`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
