/**
 * `crawl --warc` of the sample API (docs/capture.md): verify finds a response for every document the crawl fetched
 * and names one whose response is gone; a crawl killed with SIGKILL (with worker threads or without) loses nothing
 * it recorded: warcio.js reads its capture to the end, every document it stored has its response there, and a
 * resumed crawl continues in a second capture file, the two together holding every document.
 */
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { readWarc } from '../../src/capture/warc-reader.js';
import { createSnapshot } from '../../src/pipeline/create-snapshot.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { CLI } from '../helpers/cli.js';
import { startGate, type Gate } from '../helpers/gate.js';
import { rewriteFile } from '../helpers/tiny-vocabulary.js';
import { suiteDir } from '../helpers/temp-dir.js';

let api: SampleApi;
let gate: Gate;
let dir: string;
let removeDir: () => Promise<void>;

beforeAll(async () => {
  api = await startSampleApi({ records: 2, pageSize: 3, seed: 5 });
  gate = await startGate(api);
  ({ dir, remove: removeDir } = await suiteDir());
});

afterAll(async () => {
  await gate.close();
  await api.close();
  await removeDir();
});

const captureDir = (out: string) => path.join(out, '_cv-snapshot');

async function captureFiles(out: string): Promise<string[]> {
  return (await readdir(captureDir(out))).filter((name) => name.endsWith('.warc.gz')).sort();
}

/** The records of a capture file as warcio.js reads them: each one's type, URI and HTTP status. */
async function readWithWarcio(file: string): Promise<Array<{ type: string; uri: string; status: number | null }>> {
  const records = [];
  for await (const record of WARCParser.iterRecords(createReadStream(file))) {
    await record.readFully(false);
    const status = record.httpHeaders?.statusCode;
    records.push({ type: record.warcType ?? '', uri: record.warcTargetURI ?? '', status: Number(status) || null });
  }
  return records;
}

/** The URLs with a 200 response record, over every capture file of the snapshot. */
async function recordedUrls(out: string): Promise<Set<string>> {
  const urls = new Set<string>();
  for (const name of await captureFiles(out)) {
    for (const record of readWarc(path.join(captureDir(out), name), 1 << 26)) {
      if (record.fields.get('warc-type') === 'response' && record.block.toString('latin1', 0, 13) === 'HTTP/1.1 200 ') {
        urls.add(record.fields.get('warc-target-uri')!);
      }
    }
  }
  return urls;
}

describe('crawl --warc of the sample API', () => {
  it('has a response for each URL answered 200; verify names a document whose response is gone', async () => {
    const out = path.join(dir, 'whole');
    const logStart = api.requestLog.length;
    const result = await createSnapshot({ rootUrl: api.rootUrl, out, warc: true, catalogue: 'none' });
    const answered = new Set(
      api.requestLog
        .slice(logStart)
        .filter((entry) => entry.status === 200)
        .map((entry) => entry.url),
    );
    const recorded = await recordedUrls(out);
    expect(recorded.size).toBe(result.documents);
    for (const url of recorded) expect(answered.has(new URL(url).pathname + new URL(url).search)).toBe(true);
    expect((await verifySnapshot(out)).problems).toEqual([]);

    // The capture without the record of one unit: the file and SHA256SUMS agree, the capture does not.
    const [name] = await captureFiles(out);
    const file = path.join(captureDir(out), name!);
    const bytes = await readFile(file);
    const victim = [...readWarc(file, 1 << 26)].find(
      (record) =>
        record.fields.get('warc-type') === 'response' && /\/units\/\d+\/$/.test(record.fields.get('warc-target-uri')!),
    )!;
    const without = Buffer.concat([bytes.subarray(0, victim.offset), bytes.subarray(victim.offset + victim.length)]);
    await rewriteFile(out, `_cv-snapshot/${name}`, without, true);
    const { problems } = await verifySnapshot(out);
    expect(problems).toEqual([
      `1 documents have no response with status 200 in the capture (_cv-snapshot/${name}): ` +
        `${victim.fields.get('warc-target-uri')}.`,
    ]);

    // A record that is not gzip is a problem, not a crash.
    await rewriteFile(out, `_cv-snapshot/${name}`, Buffer.concat([without, gzipSync('not a warc record')]), true);
    expect((await verifySnapshot(out)).problems.join('\n')).toContain(
      `_cv-snapshot/${name} cannot be read as a capture`,
    );
  }, 60_000);

  it.each([0, 2])(
    'killed with SIGKILL and resumed (%i workers): a second capture file, nothing lost',
    async (workers) => {
      const out = path.join(dir, `killed-${workers}`);
      const args = [CLI, 'crawl', gate.root, '--out', out, '--warc', '--quiet', '--workers', String(workers)];
      // Killed once 60 documents have been served and the next request is held: in the middle of the crawl.
      const held = gate.holdAfter(60);
      const child = spawn(process.execPath, args, { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      expect(await Promise.race([held.then(() => 'held'), exited.then(() => 'ended')])).toBe('held');
      child.kill('SIGKILL');
      await exited;
      gate.drop();
      expect(child.exitCode).toBe(null);
      // What the killed run recorded reads to its end with warcio.js: no record was left half written.
      const killedFile = path.join(captureDir(`${out}.staging/tree`), 'capture-00001.warc.gz');
      const read = await readWithWarcio(killedFile);
      expect(read.length).toBeGreaterThan(1);
      const first = await recordedUrls(`${out}.staging/tree`);
      expect(new Set(read.filter((record) => record.status === 200).map((record) => record.uri))).toEqual(first);
      // Every document the killed run stored (its journal says which) has its response in that file.
      const journaled = (await readFile(`${out}.staging/journal.ndjson`, 'utf8'))
        .split('\n')
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as { t: string; url: string }];
          } catch {
            return []; // the last line, cut short by the kill (a resumed crawl ignores it too)
          }
        })
        .filter((entry) => entry.t === 'doc')
        .map((entry) => entry.url);
      expect(journaled.length).toBeGreaterThan(0);
      for (const url of journaled) expect(first.has(url), url).toBe(true);
      // A resume without --warc would leave the first run's documents out of the capture: refused.
      await expect(createSnapshot({ rootUrl: gate.root, out, resume: true })).rejects.toThrow(
        /started with other settings: --warc was given and is now \(none\)/,
      );
      const result = await createSnapshot({ rootUrl: gate.root, out, warc: true, resume: true });
      expect(result.resumed).toBe(new Set(journaled).size);
      expect(await captureFiles(out)).toEqual(['capture-00001.warc.gz', 'capture-00002.warc.gz']);
      expect(first.size).toBeGreaterThan(0);
      expect((await recordedUrls(out)).size).toBeGreaterThanOrEqual(result.documents);
      expect((await verifySnapshot(out)).problems).toEqual([]);
    },
    60_000,
  );
});
