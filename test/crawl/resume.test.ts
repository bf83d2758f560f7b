/**
 * Interruption and resume: SIGINT stops cleanly and says how to resume; kill -9 at several points
 * followed by --resume ends byte-identical to an uninterrupted crawl, refetching at most the documents in flight.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock } from '../../src/util/clock.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { createSnapshot } from '../../src/pipeline/create-snapshot.js';
import { CLI, runCli } from '../helpers/cli.js';
import { treeHashes } from '../helpers/snapshot.js';
import { suiteDir } from '../helpers/temp-dir.js';

const EPOCH = '1700000000';
const CONCURRENCY = 4;

let api: SampleApi;
let dir: string;
let removeDir: () => Promise<void>;
let expected: Record<string, string>;

beforeAll(async () => {
  // 10 ms per response at concurrency 4: about 400 documents a second, so a crawl lasts a few seconds.
  api = await startSampleApi({ records: 4, pageSize: 3, seed: 11, latencyMs: 10 });
  ({ dir, remove: removeDir } = await suiteDir());
  await createSnapshot({
    rootUrl: api.rootUrl,
    out: path.join(dir, 'reference'),
    clock: createClock({ SOURCE_DATE_EPOCH: EPOCH }),
  });
  expected = await treeHashes(path.join(dir, 'reference'));
}, 60_000);

afterAll(async () => {
  await api.close();
  await removeDir();
});

function crawlArgs(out: string, extra: string[] = []): string[] {
  return ['crawl', api.rootUrl, '--out', out, '--concurrency', String(CONCURRENCY), '--quiet', ...extra];
}

/** Starts a crawl, kills it with `signal` once `after` documents have been served, and waits for it to end. */
async function interrupt(args: string[], signal: NodeJS.Signals, after: number) {
  const served = () => api.requestLog.filter((r) => r.status === 200).length;
  const start = served();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, SOURCE_DATE_EPOCH: EPOCH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  while (served() - start < after) {
    if (child.exitCode !== null) throw new Error(`the crawl ended before it could be interrupted: ${stderr}`);
    await sleep(5);
  }
  child.kill(signal);
  return { code: await exited, stderr };
}

describe('interruption and --resume', () => {
  it('SIGINT exits 130, keeps the previous snapshot, says how to resume; --resume completes it the same', async () => {
    const out = path.join(dir, 'sigint');
    const clock = () => createClock({ SOURCE_DATE_EPOCH: EPOCH });
    await createSnapshot({ rootUrl: api.rootUrl, out, clock: clock() });
    const previous = await treeHashes(out);
    // What an uninterrupted crawl into a folder that holds the same snapshot writes: its Changes page (and so the
    // front page, the manifest and SHA256SUMS) compares with that snapshot (docs/catalogue.md#changes).
    const twice = path.join(dir, 'twice');
    await createSnapshot({ rootUrl: api.rootUrl, out: twice, clock: clock() });
    await createSnapshot({ rootUrl: api.rootUrl, out: twice, clock: clock() });
    const expectedAgain = await treeHashes(twice);
    expect(Object.keys(expectedAgain)).toEqual(Object.keys(expected));

    const { code, stderr } = await interrupt(crawlArgs(out), 'SIGINT', 200);
    expect(code).toBe(130);
    expect(stderr).toContain('Interrupted by SIGINT');
    expect(stderr).toContain('--resume');
    expect(await treeHashes(out)).toEqual(previous);

    const again = await runCli(crawlArgs(out), { env: { SOURCE_DATE_EPOCH: EPOCH } });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/--resume to continue it, or with --fresh/);

    const resumed = await runCli(crawlArgs(out, ['--resume']), { env: { SOURCE_DATE_EPOCH: EPOCH } });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/taken from the interrupted run/);
    expect(await treeHashes(out)).toEqual(expectedAgain);
    expect(existsSync(`${out}.staging`)).toBe(false);
  }, 60_000);

  it('SIGTERM exits 143', async () => {
    const out = path.join(dir, 'sigterm');
    const { code, stderr } = await interrupt(crawlArgs(out), 'SIGTERM', 100);
    expect(code).toBe(143);
    expect(stderr).toContain('Interrupted by SIGTERM');
  }, 60_000);

  it('kill -9 at points (0-2 workers), then --resume: byte-identical, refetching only the in-flight', async () => {
    const out = path.join(dir, 'killed');
    const kills = [150, 420, 90];
    const fetchedBefore = new Set<string>();
    let refetched = 0;
    for (const [i, after] of kills.entries()) {
      const logStart = api.requestLog.length;
      // Each phase with another number of worker threads: a file a worker wrote but the journal missed is rewritten.
      const workers = ['--workers', String(i)];
      const { code } = await interrupt(crawlArgs(out, i === 0 ? workers : [...workers, '--resume']), 'SIGKILL', after);
      expect(code).toBeNull();
      const phase = api.requestLog
        .slice(logStart)
        .filter((r) => r.status === 200)
        .map((r) => r.url);
      refetched += phase.filter((url) => fetchedBefore.has(url)).length;
      for (const url of phase) fetchedBefore.add(url);
      expect(existsSync(`${out}.staging`)).toBe(true);
      expect(existsSync(out)).toBe(false);
    }
    const logStart = api.requestLog.length;
    const last = await runCli(crawlArgs(out, ['--resume', '--workers', '2']), { env: { SOURCE_DATE_EPOCH: EPOCH } });
    expect(last.stderr).toBe('');
    expect(last.code).toBe(0);
    refetched += api.requestLog.slice(logStart).filter((r) => r.status === 200 && fetchedBefore.has(r.url)).length;
    // Lost at a kill (docs/safety.md): up to CONCURRENCY requests in flight, up to CONCURRENCY responses received but
    // not yet written, and up to CONCURRENCY documents written in the current turn whose journal lines are not yet;
    // with workers, up to CONCURRENCY more that a worker has written and not yet reported. The first phase has no
    // workers, the others 1 and 2.
    // And each of the three resumes checks the source's state: the root index and page 1 of each collection.
    const root = (await (await fetch(api.rootUrl)).json()) as { data: Record<string, string> };
    const stateChecks = 3 * (1 + Object.keys(root.data).length);
    expect(refetched).toBeLessThanOrEqual((3 + 4 + 4) * CONCURRENCY + stateChecks);
    expect(await treeHashes(out)).toEqual(expected);
  }, 90_000);

  it('refuses --resume with other settings, and with nothing to resume', async () => {
    const out = path.join(dir, 'settings');
    await interrupt(crawlArgs(out), 'SIGINT', 50);
    const other = await runCli(crawlArgs(out, ['--resume', '--links', 'original']));
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('was started with other settings: --links was relative and is now original.');
    const nothing = await runCli(crawlArgs(path.join(dir, 'never'), ['--resume']));
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('There is no interrupted crawl to resume');
  }, 60_000);
});
