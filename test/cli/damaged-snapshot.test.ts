/**
 * A snapshot from elsewhere: files of a crawled tree replaced by what no crawl writes (text that is not JSON, a byte
 * order mark, lists of the wrong kind, JSON nested 400 deep, a `_headers` header with a control character, a report
 * that is not JSON), with SHA256SUMS made to match so that nothing stops at the checksums. Every command ends as the
 * exit codes say (docs/cli.md), with a sentence, never a stack; `serve` answers every request, the damaged collections
 * with an error naming their file, the others as before.
 */
import { createHash } from 'node:crypto';
import { appendFile, cp, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleApi } from '../../src/sample-api/index.js';
import { get } from '../sample-api/http.js';
import { runMain, type CliResult } from '../helpers/cli.js';
import { serveWarnings } from '../helpers/serve-warnings.js';
import { suiteDir } from '../helpers/temp-dir.js';

const API = path.join('sms', 'cv', 'api', 'v1');
const firstPage = (collection: string) => path.posix.join('sms/cv/api/v1', collection, 'page/1/index.html');

/** Files of the tree and what is put in their place. */
const DAMAGE: Array<[string, string]> = [
  [firstPage('units'), 'not json {'],
  [firstPage('units-communities'), '\uFEFF{"data":[]}'],
  [firstPage('actiontypes'), '{"data":[null,1,"x",[]]}'],
  [firstPage('countries'), '{"data":{"type":1,"id":{}}}'],
  ['sms/cv/api/v1/licenses/1/index.html', `${'['.repeat(400)}${']'.repeat(400)}`],
  ['_cv-snapshot/report.json', 'not json'],
];

let work: { dir: string; remove: () => Promise<void> };
let clean: string;
let damaged: string;

/** Rewrites SHA256SUMS of `dir` to what its files now hold. */
async function matchSums(dir: string): Promise<void> {
  const sumsFile = path.join(dir, '_cv-snapshot', 'SHA256SUMS');
  const lines = (await readFile(sumsFile, 'utf8')).split('\n').filter((line) => line !== '');
  const rewritten = await Promise.all(
    lines.map(async (line) => {
      const file = line.slice(66);
      const bytes = await readFile(path.join(dir, ...file.split('/')));
      return `${createHash('sha256').update(bytes).digest('hex')}  ${file}`;
    }),
  );
  await writeFile(sumsFile, `${rewritten.join('\n')}\n`);
}

beforeAll(async () => {
  work = await suiteDir();
  const api = await startSampleApi({ records: 4, pageSize: 3, seed: 5 });
  try {
    clean = path.join(work.dir, 'clean');
    const crawl = await runMain(['crawl', api.rootUrl, '--out', clean, '--quiet']);
    expect(crawl.code, crawl.stderr).toBe(0);
  } finally {
    await api.close();
  }
  damaged = path.join(work.dir, 'damaged');
  await cp(clean, damaged, { recursive: true, dereference: true });
  for (const [file, text] of DAMAGE) await writeFile(path.join(damaged, ...file.split('/')), text);
  await appendFile(path.join(damaged, '_headers'), '/*\n  X-Bad: a\u0000b\n');
  await matchSums(damaged);
}, 60_000);

afterAll(async () => {
  await work.remove();
});

function expectSentence(name: string, result: CliResult, codes: number[]): void {
  expect(codes, `${name} exited ${result.code}: ${result.stderr}`).toContain(result.code);
  expect(result.stderr, name).not.toContain('unexpected failure');
  expect(result.stderr, name).not.toMatch(/\n\s+at /);
}

describe('every command on a damaged snapshot', () => {
  it('ends as the exit codes say, with a sentence', async () => {
    const verify = await runMain(['verify', damaged]);
    expectSentence('verify', verify, [3]);
    expect(verify.stdout + verify.stderr).toContain(firstPage('units'));
    // A list page that is not JSON cannot be compared: diff names it and says to run verify, as export does.
    for (const [name, args] of [
      ['diff', ['diff', clean, damaged]],
      ['diff json', ['diff', damaged, clean, '--format', 'json']],
    ] as const) {
      const diffed = await runMain([...args]);
      expectSentence(name, diffed, [1]);
      expect(diffed.stderr).toContain(`${firstPage('units')} is not valid JSON`);
      expect(diffed.stderr).toContain(`Run cv-snapshot verify ${damaged}`);
    }
    for (const format of ['turtle', 'jsonld', 'csv']) {
      const output = path.join(work.dir, `export.${format}`);
      const exported = await runMain(['export', damaged, '--format', format, '--output', output]);
      expectSentence(`export ${format}`, exported, [1]);
      expect(exported.stderr).toContain(`${firstPage('units')} is not valid JSON`);
    }
    const catalogue = path.join(work.dir, 'with-catalogue');
    // The catalogue is not built over a page it cannot read, which it would show as a collection without records.
    const built = await runMain(['catalogue', damaged, '--out', catalogue]);
    expectSentence('catalogue', built, [1]);
    expect(built.stderr).toContain(`${firstPage('units')} is not valid JSON`);
    expect(existsSync(catalogue)).toBe(false);
    expectSentence('pack', await runMain(['pack', damaged, '--output', path.join(work.dir, 'd.tar.gz')]), [0]);
  }, 60_000);

  it('serve answers every request, naming the damaged file where an answer needs it', async () => {
    const warnings = await serveWarnings(damaged, async (serve) => {
      const units = await get(`${serve.url}units/?sort=term`);
      expect(units.status).toBe(500);
      expect(JSON.parse(units.text).errors[0].detail).toContain(`${firstPage('units')} is not valid JSON`);
      const included = await get(`${serve.url}measuredquantityunits/?include=unit`);
      expect(included.status).toBe(500);
      const licenses = JSON.parse((await get(`${serve.url}licenses/`)).text) as { data: Array<{ id: string }> };
      const undamaged = licenses.data.find((record) => record.id !== '1')!.id;
      for (const at of ['', 'licenses/', 'sitetypes/?sort=-term', `licenses/${undamaged}/`]) {
        const answer = await get(`${serve.url}${at}`);
        expect(answer.status, at).toBe(200);
        expect(answer.headers['x-content-type-options'], at).toBe('nosniff');
      }
    });
    expect(warnings.some((warning) => warning.includes('_headers: 1 header left out'))).toBe(true);
    for (const warning of warnings) expect(warning).not.toMatch(/\n\s+at /);
  });

  it('serve refuses a root index that is not JSON with a sentence; the others read the tree as before', async () => {
    const rootless = path.join(work.dir, 'rootless');
    await cp(clean, rootless, { recursive: true, dereference: true });
    await writeFile(path.join(rootless, API, 'index.html'), 'not json');
    await matchSums(rootless);
    const serve = await runMain(['serve', rootless, '--port', '0']);
    expectSentence('serve', serve, [1]);
    expect(serve.stderr).toContain('cannot be served: its root index sms/cv/api/v1/index.html is not valid JSON');
    expectSentence('verify', await runMain(['verify', rootless]), [3]);
    expectSentence('catalogue', await runMain(['catalogue', rootless, '--out', path.join(work.dir, 'r-cat')]), [0]);
  });

  it('every command names the field of a manifest that crawl would not write, in a line, not a dump', async () => {
    const wrong = path.join(work.dir, 'wrong-manifest');
    await cp(clean, wrong, { recursive: true, dereference: true });
    const file = path.join(wrong, '_cv-snapshot', 'manifest.json');
    const manifest = JSON.parse(await readFile(file, 'utf8')) as { collections: Record<string, { records: number }> };
    manifest.collections.units!.records = -1;
    await writeFile(file, JSON.stringify(manifest));
    await matchSums(wrong);
    const named = `_cv-snapshot/manifest.json is not a cv-snapshot manifest ("collections.units.records": `;
    const commands: Array<[string, string[]]> = [
      ['verify', ['verify', wrong]],
      ['export', ['export', wrong, '--format', 'csv', '--output', path.join(work.dir, 'w.csv')]],
      ['diff', ['diff', clean, wrong]],
      ['catalogue', ['catalogue', wrong, '--out', path.join(work.dir, 'w-cat')]],
      ['serve', ['serve', wrong, '--port', '0']],
    ];
    for (const [name, args] of commands) {
      const result = await runMain(args);
      expectSentence(name, result, [1]);
      expect(result.stderr, name).toContain(`${wrong}: ${named}`);
      expect(result.stderr.trimEnd().split('\n'), name).toHaveLength(1);
    }
  });
});
