/**
 * A source whose documents are each a little wrong (a member removed, a value of the wrong kind, script or a
 * `javascript:` URL in a text, control characters, a string of 5,000 characters), as a service with bugs serves them:
 * the sample API behind a proxy that breaks half of its documents, the same way for every request of a URL. Every
 * command ends as documented, with findings rather than a crash; the snapshot is sound (its report explains each
 * fault), and no page for people carries the source's script.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { runMain, type CliResult } from '../helpers/cli.js';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';

/** What a broken document may hold in place of a member's value. */
const WRONG_VALUES: unknown[] = [
  null,
  0,
  -1.5,
  '',
  '<script>alert(1)</script>',
  [],
  {},
  true,
  'x'.repeat(5000),
  '\u001b[2J\u0000\u2028',
  { type: 7, id: null },
  [null, 1, 'a'],
  'javascript:alert(1)',
  'http://elsewhere.example/',
  '../../etc/passwd',
  '%zz',
];

/** xorshift32: the same breakage for a seed and a URL, whatever order the requests come in. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296;
  };
}

function memberPaths(value: unknown, at: string[] = [], into: string[][] = []): string[][] {
  if (at.length > 0) into.push(at);
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) memberPaths((value as Record<string, unknown>)[key], [...at, key], into);
  }
  return into;
}

/** One to three members of `document` removed or given a wrong value. */
function breakDocument(document: unknown, next: () => number): unknown {
  const paths = memberPaths(document);
  const changes = 1 + Math.floor(next() * 3);
  for (let i = 0; i < changes && paths.length > 0; i++) {
    const at = paths[Math.floor(next() * paths.length)]!;
    let parent = document as Record<string, unknown>;
    for (const key of at.slice(0, -1)) parent = parent?.[key] as Record<string, unknown>;
    if (typeof parent !== 'object' || parent === null) continue;
    const key = at[at.length - 1]!;
    if (next() < 0.2) {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    } else {
      parent[key] = structuredClone(WRONG_VALUES[Math.floor(next() * WRONG_VALUES.length)]);
    }
  }
  return document;
}

async function brokenSource(api: SampleApi, seed: number): Promise<TestServer & { root: string }> {
  const origin = new URL(api.rootUrl).origin;
  const server = await startServer(async (req, res) => {
    const answer = await fetch(new URL(req.url ?? '/', origin), { headers: { accept: 'application/vnd.api+json' } });
    const text = (await answer.text()).split(origin).join(`http://${req.headers.host}`);
    let hash = seed;
    for (const char of req.url ?? '') hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0;
    const next = random(hash);
    // The root index stays whole (a broken one is refused at once: hostile-documents.test.ts); half the rest break.
    const broken = !(req.url ?? '').endsWith('/v1/') && next() < 0.5;
    sendJson(res, answer.status, broken ? JSON.stringify(breakDocument(JSON.parse(text), next)) : text);
  });
  return { ...server, root: `${server.url}${new URL(api.rootUrl).pathname}` };
}

async function htmlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.html')).map((e) => path.join(e.parentPath, e.name));
}

function expectDocumented(name: string, result: CliResult): void {
  expect(result.stderr, name).not.toContain('unexpected failure');
  expect(result.code, `${name}: ${result.stderr}`).toBe(0);
}

let api: SampleApi;
let removeSuite: () => Promise<void>;
/** A snapshot of the whole source, which diff compares each broken one with (without pages: diff reads documents). */
let clean: string;
beforeAll(async () => {
  api = await startSampleApi({ records: 2, pageSize: 2 });
  const suite = await suiteDir();
  removeSuite = suite.remove;
  clean = path.join(suite.dir, 'clean');
  const crawled = await runMain(['crawl', api.rootUrl, '--out', clean, '--quiet', '--catalogue', 'none']);
  expectDocumented('crawl of the whole source', crawled);
});
afterAll(async () => {
  await api.close();
  await removeSuite();
});

describe('a source whose documents are each a little wrong', () => {
  for (const seed of [11, 12]) {
    it(`breakage ${seed}: every command ends as documented and the snapshot is sound`, async () => {
      const source = await brokenSource(api, seed);
      try {
        const dir = await tempDir();
        const out = path.join(dir, 'out');
        const crawl = ['--quiet', '--allow-partial', '--retries', '0'];
        expectDocumented('crawl', await runMain(['crawl', source.root, '--out', out, ...crawl]));
        const derived = path.join(dir, 'derived');
        expectDocumented(
          'crawl --derive',
          await runMain(['crawl', source.root, '--out', derived, ...crawl, '--derive']),
        );
        const report = JSON.parse(await readFile(path.join(out, '_cv-snapshot', 'report.json'), 'utf8')) as {
          errors: number;
        };
        expect(report.errors, 'the breakage is reported').toBeGreaterThan(0);

        for (const snapshot of [out, derived])
          expectDocumented(`verify ${snapshot}`, await runMain(['verify', snapshot]));
        for (const format of ['turtle', 'jsonld', 'csv']) {
          const output = path.join(dir, `export.${format}`);
          expectDocumented(`export ${format}`, await runMain(['export', out, '--format', format, '--output', output]));
        }
        const catalogue = path.join(dir, 'catalogue');
        expectDocumented('catalogue', await runMain(['catalogue', out, '--out', catalogue]));
        expectDocumented('diff', await runMain(['diff', clean, out]));
        expectDocumented('diff --format json', await runMain(['diff', out, clean, '--format', 'json']));

        // The source's script is text on every page, and its javascript: URLs never a link.
        const pages = [...(await htmlFiles(out)), ...(await htmlFiles(catalogue))];
        let carried = 0;
        for (const page of pages) {
          const html = await readFile(page, 'utf8');
          if (html.includes('alert(1)')) carried += 1;
          expect(html, page).not.toContain('<script>alert(1)</script>');
          expect(html, page).not.toMatch(/href="\s*javascript:/i);
        }
        expect(carried, 'pages that show the script as text').toBeGreaterThan(0);
      } finally {
        await source.close();
      }
    }, 120_000);
  }
});
