/**
 * Interruption and resume: SIGINT stops cleanly and says how to resume; kill -9 at several points
 * followed by --resume ends byte-identical to an uninterrupted crawl, refetching at most the documents in flight.
 * The crawls reach the sample API through a gate that holds every request once a crawl has been served a given number
 * of documents, so that each signal lands in the middle of a crawl however fast or slow the machine is. The signals
 * reach the built command line; the resumes and refusals after them run the command's `main` in the test's process
 * (which takes SOURCE_DATE_EPOCH from the environment it is handed), but for the resume with worker threads, which
 * run the built code.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { CLI, runCli, runMain } from '../helpers/cli.js';
import { crawlForTest, TEST_EPOCH as EPOCH } from '../helpers/crawl.js';
import { startGate, type Gate } from '../helpers/gate.js';
import { treeHashes } from '../helpers/snapshot.js';
import { suiteDir } from '../helpers/temp-dir.js';

const CONCURRENCY = 4;

let api: SampleApi;
let gate: Gate;
let dir: string;
let removeDir: () => Promise<void>;
let expected: Record<string, string>;

beforeAll(async () => {
  // About 400 documents: room for three kills and a resume between them.
  api = await startSampleApi({ records: 2, pageSize: 3, seed: 11 });
  gate = await startGate(api);
  ({ dir, remove: removeDir } = await suiteDir());
  await crawlForTest(gate.root, path.join(dir, 'reference'));
  expected = await treeHashes(path.join(dir, 'reference'));
}, 60_000);

afterAll(async () => {
  await gate.close();
  await api.close();
  await removeDir();
});

function crawlArgs(out: string, extra: string[] = []): string[] {
  return [
    'crawl',
    gate.root,
    '--out',
    out,
    '--concurrency',
    String(CONCURRENCY),
    '--quiet',
    '--retries',
    '0',
    ...extra,
  ];
}

/** Starts a crawl, sends it `signal` once `after` documents have been served and the next request is held. */
async function interrupt(args: string[], signal: NodeJS.Signals, after: number) {
  const held = gate.holdAfter(after);
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, SOURCE_DATE_EPOCH: EPOCH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const first = await Promise.race([held.then(() => 'held' as const), exited.then(() => 'exited' as const)]);
  if (first === 'exited') throw new Error(`the crawl ended before it could be interrupted: ${stderr}`);
  child.kill(signal);
  const code = await exited;
  gate.drop();
  return { code, stderr };
}

describe('interruption and --resume', () => {
  it('SIGINT exits 130, keeps the previous snapshot, says how to resume; --resume completes it the same', async () => {
    const out = path.join(dir, 'sigint');
    await crawlForTest(gate.root, out);
    const previous = await treeHashes(out);
    // What an uninterrupted crawl into a folder that holds the same snapshot writes: its Changes page (and so the
    // front page, the manifest and SHA256SUMS) compares with that snapshot (docs/catalogue.md#changes).
    const twice = path.join(dir, 'twice');
    await crawlForTest(gate.root, twice);
    await crawlForTest(gate.root, twice);
    const expectedAgain = await treeHashes(twice);
    expect(Object.keys(expectedAgain)).toEqual(Object.keys(expected));

    const { code, stderr } = await interrupt(crawlArgs(out), 'SIGINT', 100);
    expect(code).toBe(130);
    expect(stderr).toContain('Interrupted by SIGINT');
    expect(stderr).toContain('--resume');
    expect(await treeHashes(out)).toEqual(previous);

    const again = await runMain(crawlArgs(out), { env: { SOURCE_DATE_EPOCH: EPOCH } });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/--resume to continue it, or with --fresh/);

    const resumed = await runMain(crawlArgs(out, ['--resume']), { env: { SOURCE_DATE_EPOCH: EPOCH } });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/taken from the interrupted run/);
    expect(await treeHashes(out)).toEqual(expectedAgain);
    expect(existsSync(`${out}.staging`)).toBe(false);
  }, 60_000);

  it('SIGTERM exits 143', async () => {
    const out = path.join(dir, 'sigterm');
    const { code, stderr } = await interrupt(crawlArgs(out), 'SIGTERM', 50);
    expect(code).toBe(143);
    expect(stderr).toContain('Interrupted by SIGTERM');
  }, 60_000);

  it('kill -9 at points (0-2 workers), then --resume: byte-identical, refetching only the in-flight', async () => {
    const out = path.join(dir, 'killed');
    const kills = [100, 150, 60];
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
    await interrupt(crawlArgs(out), 'SIGINT', 30);
    const other = await runMain(crawlArgs(out, ['--resume', '--links', 'original']));
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('was started with other settings: --links was relative and is now original.');
    const nothing = await runMain(crawlArgs(path.join(dir, 'never'), ['--resume']));
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('There is no interrupted crawl to resume');
  }, 60_000);
});
