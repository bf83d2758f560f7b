/**
 * The determinism promise, end to end: one sample API whose answers arrive with per-URL jitter is crawled twice by
 * the built command line, at other concurrencies, time zones and locales, and the snapshots, then their archives
 * (packed by the command line in each time zone and locale), are the same bytes. Standard tools (tar, sha256sum)
 * accept the archive, and `verify` takes it and notices a change. Without SOURCE_DATE_EPOCH, the recorded time is the
 * only difference between two crawls. The checks of an archive, where the process's time zone, locale and
 * SOURCE_DATE_EPOCH are not the point, run the command's `main` in the test's process.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, createSampleData, startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { Layout } from '../../src/format/layout.js';
import { MANIFEST_PATH, manifestSchema } from '../../src/format/manifest.js';
import { SUMS_PATH } from '../../src/store/sums.js';
import { runCli, runMain } from '../helpers/cli.js';
import { treeHashes } from '../helpers/snapshot.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { copySnapshot } from '../helpers/tiny-vocabulary.js';

const run = promisify(execFile);
const EPOCH = '1700000000';
const HERE = { TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
const ELSEWHERE = { TZ: 'Pacific/Kiritimati', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' };

const DATA = { records: 3, pageSize: 2, seed: 21 };

let api: SampleApi;
let dir: string;
let removeSuite: () => Promise<void>;
let first: string;
let second: string;
/** URLs requested by each crawl, in the order they reached the API. */
let firstOrder: string[];
let secondOrder: string[];

async function crawl(
  out: string,
  concurrency: number,
  env: NodeJS.ProcessEnv,
  run: typeof runCli = runCli,
): Promise<string[]> {
  const from = api.requestLog.length;
  const result = await run(['crawl', api.rootUrl, '--out', out, '--concurrency', String(concurrency), '--quiet'], {
    env,
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return api.requestLog.slice(from).map((entry) => entry.url);
}

async function pack(
  snapshot: string,
  output: string,
  env: NodeJS.ProcessEnv,
  run: typeof runCli = runCli,
): Promise<{ output: string; sha256: string }> {
  const result = await run(['pack', snapshot, '--output', output], { env });
  expect(result.code).toBe(0);
  const [written, sha256] = result.stdout.trimEnd().split('\n');
  return { output: written!, sha256: sha256! };
}

beforeAll(async () => {
  // The jitter (the same for a URL every time) makes responses overtake each other, differently at each concurrency.
  api = await startSampleApi({ ...DATA, latencyMs: 1, latencyJitterMs: 8 });
  ({ dir, remove: removeSuite } = await suiteDir());
  first = path.join(dir, 'first');
  second = path.join(dir, 'second');
  firstOrder = await crawl(first, 2, { SOURCE_DATE_EPOCH: EPOCH, ...HERE });
  secondOrder = await crawl(second, 16, { SOURCE_DATE_EPOCH: EPOCH, ...ELSEWHERE });
}, 120_000);
afterAll(async () => {
  await api.close();
  await removeSuite();
});

describe('two crawls of one source state', () => {
  it('fetched the documents in different orders', () => {
    expect(new Set(secondOrder)).toEqual(new Set(firstOrder));
    expect(secondOrder).not.toEqual(firstOrder);
  });

  it('give byte-identical trees, whatever the concurrency, time zone and locale', async () => {
    const hashes = await treeHashes(first);
    expect(Object.keys(hashes).length).toBeGreaterThan(500);
    expect(await treeHashes(second)).toEqual(hashes);
    const manifest = JSON.parse(await readFile(path.join(first, ...MANIFEST_PATH.split('/')), 'utf8')) as {
      createdAt: string;
    };
    expect(manifest.createdAt).toBe(new Date(Number(EPOCH) * 1000).toISOString());
  });

  it('give archives with the same bytes and SHA-256, packed in other time zones and locales', async () => {
    const a = await pack(first, path.join(dir, 'first.tar.gz'), HERE);
    const b = await pack(second, path.join(dir, 'second.tar.gz'), ELSEWHERE);
    expect(b.sha256).toBe(a.sha256);
    expect((await readFile(b.output)).equals(await readFile(a.output))).toBe(true);
  });
});

describe('the manifest', () => {
  it('records source, tool, options, counts per collection and validation, and no Date header', async () => {
    const text = await readFile(path.join(first, ...MANIFEST_PATH.split('/')), 'utf8');
    const manifest = manifestSchema.parse(JSON.parse(text));
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      name: string;
      version: string;
    };
    const data = createSampleData({ seed: DATA.seed, records: DATA.records });
    const root = await fetch(api.rootUrl, { headers: { accept: 'application/vnd.api+json' } });
    await root.arrayBuffer();
    expect(manifest).toMatchObject({
      format: 'cv-snapshot',
      formatVersion: 1,
      tool: { name: pkg.name, version: pkg.version },
      source: { root: api.rootUrl, etag: root.headers.get('etag'), lastModified: data.lastModified.toUTCString() },
      options: { links: 'relative', baseUrl: null, collectionIndex: 'complete', strict: false, headers: [] },
      partial: false,
      missing: [],
      validation: { errors: 0, warnings: 0 },
    });
    // The root index's Date is the moment of a response, not the state of the source (manifest.ts).
    expect(Object.keys(manifest.source).sort()).toEqual(['etag', 'lastModified', 'root']);
    expect(text).not.toContain(root.headers.get('date')!);
    expect(Object.keys(manifest.collections)).toEqual(CATALOGUE.map((c) => c.name).sort());
    for (const c of data.collections) {
      expect(manifest.collections[c.name]).toMatchObject({
        records: c.records.length,
        pages: Math.ceil(c.records.length / DATA.pageSize),
      });
    }
  });
});

describe('the archive, with standard tools and verify', () => {
  let archive: string;
  beforeAll(async () => {
    archive = (await pack(first, path.join(dir, 'snapshot.tar.gz'), {}, runMain)).output;
  });

  it('extracts with tar -xzf to a tree identical to the snapshot, where sha256sum -c SHA256SUMS passes', async () => {
    const copy = path.join(dir, 'extracted');
    await mkdir(copy);
    await run('tar', ['-xzf', archive, '-C', copy]);
    expect(await treeHashes(copy)).toEqual(await treeHashes(first));
    const { stdout } = await run('sha256sum', ['--strict', '-c', SUMS_PATH], { cwd: copy });
    expect(
      stdout
        .trimEnd()
        .split('\n')
        .every((line) => line.endsWith(': OK')),
    ).toBe(true);
  });

  it('has a sidecar that sha256sum -c accepts', async () => {
    const { stdout } = await run('sha256sum', ['--strict', '-c', `${path.basename(archive)}.sha256`], { cwd: dir });
    expect(stdout).toBe(`${path.basename(archive)}: OK\n`);
  });

  it('passes verify', async () => {
    const result = await runMain(['verify', archive]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('fails verify with one byte of the compressed data changed, with or without its sidecar', async () => {
    const bytes = await readFile(archive);
    // Past the 10-byte gzip header and before the 8-byte trailer: inside the deflate stream.
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    const withSidecar = path.join(dir, 'changed.tar.gz');
    await writeFile(withSidecar, bytes);
    await cp(`${archive}.sha256`, `${withSidecar}.sha256`);
    const caught = await runMain(['verify', withSidecar]);
    expect(caught.code).toBe(1);
    expect(caught.stderr).toMatch(/changed\.tar\.gz was changed/);

    const alone = path.join(dir, 'alone', 'changed.tar.gz');
    await mkdir(path.dirname(alone));
    await writeFile(alone, bytes);
    const result = await runMain(['verify', alone]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).not.toBe('');
  });

  it('refuses to pack a changed document; verify names it in an archive made with tar', async () => {
    const tampered = path.join(dir, 'tampered');
    await copySnapshot(first, tampered); // first is a symbolic link to the snapshot
    const manifest = JSON.parse(await readFile(path.join(first, ...MANIFEST_PATH.split('/')), 'utf8')) as {
      source: { root: string };
    };
    const file = new Layout(manifest.source.root).collectionIndex('licenses').file;
    const target = path.join(tampered, ...file.split('/'));
    const text = await readFile(target, 'utf8');
    // One licence's term, edited by hand as a hot fix would be.
    const term = (JSON.parse(text) as { data: Array<{ attributes: { term: string } }> }).data[0]!.attributes.term;
    expect(text).toContain(`"${term}"`);
    await writeFile(target, text.replace(`"${term}"`, `"${term} (edited)"`));
    const refused = await runMain(['pack', tampered, '--output', path.join(dir, 'tampered.tar.gz')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${file} does not match its checksum in ${SUMS_PATH}: it was changed after`);
    const byHand = path.join(dir, 'tampered-by-hand.tar.gz');
    await run('tar', ['-C', tampered, '-czf', byHand, '.']);
    const result = await runMain(['verify', byHand]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`${file} was changed after the crawl`);
  });
});

describe('without SOURCE_DATE_EPOCH', () => {
  it('the recorded time is the only difference between two crawls, and it is the crawl start', async () => {
    const outs = [path.join(dir, 'now-1'), path.join(dir, 'now-2')];
    const windows: Array<[number, number]> = [];
    for (const out of outs) {
      // A second apart at least, so that the two recorded times differ.
      const last = windows.at(-1);
      if (last !== undefined)
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(0, Math.floor(last[0] / 1000) * 1000 + 1000 - Date.now())),
        );
      const started = Date.now();
      // In this process: the time zone and locale are not the subject here, the clock is.
      await crawl(out, 8, { SOURCE_DATE_EPOCH: undefined }, runMain);
      windows.push([started, Date.now()]);
    }
    const [a, b] = await Promise.all(outs.map((out) => treeHashes(out)));
    const differing = Object.keys(a!).filter((file) => a![file] !== b![file]);
    expect(Object.keys(b!)).toEqual(Object.keys(a!));
    // The catalogue's front page shows the recorded time; nothing else in it differs.
    // The catalogue holds the time in its front page and in the snapshot.js its record pages' citations read.
    expect(differing.sort()).toEqual([MANIFEST_PATH, SUMS_PATH, 'index.html', '_catalogue/snapshot.js'].sort());
    const fronts = await Promise.all(outs.map((out) => readFile(path.join(out, 'index.html'), 'utf8')));

    const manifests = await Promise.all(
      outs.map(
        async (out) =>
          JSON.parse(await readFile(path.join(out, ...MANIFEST_PATH.split('/')), 'utf8')) as Record<string, unknown>,
      ),
    );
    manifests.forEach((manifest, i) => {
      const recorded = Date.parse(manifest.createdAt as string);
      const [started, ended] = windows[i]!;
      expect(recorded).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
      expect(recorded).toBeLessThanOrEqual(ended);
    });
    expect(manifests[0]!.createdAt).not.toBe(manifests[1]!.createdAt);
    const time = /<time datetime="[^"]*">[^<]*<\/time>/;
    expect(fronts[0]!.match(time)?.[0]).toContain(`datetime="${manifests[0]!.createdAt as string}"`);
    expect(fronts[0]!.replace(time, 'T')).toBe(fronts[1]!.replace(time, 'T'));
    const { createdAt: _a, ...restA } = manifests[0]!;
    const { createdAt: _b, ...restB } = manifests[1]!;
    expect(restB).toEqual(restA);

    // SHA256SUMS differs in the lines of the manifest, the front page and the catalogue's snapshot.js alone.
    const sums = await Promise.all(
      outs.map(async (out) => (await readFile(path.join(out, ...SUMS_PATH.split('/')), 'utf8')).split('\n')),
    );
    const changedLines = sums[0]!.filter((line, i) => line !== sums[1]![i]);
    expect(changedLines.map((line) => line.slice(66)).sort()).toEqual(
      [MANIFEST_PATH, 'index.html', '_catalogue/snapshot.js'].sort(),
    );
  });
});
