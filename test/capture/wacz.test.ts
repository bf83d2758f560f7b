/**
 * `pack --format wacz` (docs/capture.md#wacz): a WACZ 1.1.1 of a snapshot's capture, checked with Info-ZIP's unzip
 * and warcio.js rather than our own readers: the same bytes when packed twice, every index line leading to the
 * response record of its URL under warcio.js's SURT key, the data package's digests true; `verify` accepts it and
 * names what is changed in a copy.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WARCParser } from 'warcio';
import { getSurt } from 'warcio/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packWacz } from '../../src/archive/pack-wacz.js';
import { packCommand } from '../../src/cli/pack-command.js';
import { verifyCommand } from '../../src/cli/verify-command.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { verifyWacz } from '../../src/verify/verify-wacz.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

let api: SampleApi;
let dir: string;
let removeDir: () => Promise<void>;
let out: string;

beforeAll(async () => {
  api = await startSampleApi({ records: 1, pageSize: 2, seed: 3 });
  ({ dir, remove: removeDir } = await suiteDir());
  out = path.join(dir, 'snapshot');
  await crawlForTest(api.rootUrl, out, { warc: true, catalogue: 'none' });
}, 60_000);

afterAll(async () => {
  await api.close();
  await removeDir();
});

const unzip = (args: string[]): Buffer => execFileSync('unzip', args, { maxBuffer: 1 << 28 });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function quietIo() {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (s: string) => ((stdout += s), true) } as unknown as NodeJS.WritableStream,
    stderr: { write: (s: string) => ((stderr += s), true) } as unknown as NodeJS.WritableStream,
    env: {},
    signal: new AbortController().signal,
  };
  return { io, output: () => ({ stdout, stderr }) };
}

// Each test packs, unpacks and reads back a capture of a few hundred exchanges: seconds on an idle machine, and
// several times that when the cores are shared with other test files.
describe('pack --format wacz', () => {
  it('writes the same WACZ twice, whose index, pages and data package standard tools confirm', async () => {
    const first = path.join(dir, 'first.wacz');
    const { io } = quietIo();
    expect(await packCommand.run([out], { format: 'wacz', output: first, force: false, json: false }, io)).toBe(0);
    const second = await packWacz(out, { output: path.join(dir, 'second.wacz') });
    const bytes = await readFile(first);
    expect(sha256(await readFile(second.output))).toBe(sha256(bytes));
    expect(await readFile(`${first}.sha256`, 'utf8')).toBe(`${sha256(bytes)}  first.wacz\n`);

    // unzip tests every entry's CRC-32 and lists what the WACZ holds.
    expect(unzip(['-tq', first]).toString()).toMatch(/No errors detected/);
    expect(unzip(['-Z1', first]).toString().trim().split('\n')).toEqual([
      'archive/capture-00001.warc.gz',
      'indexes/index.cdxj',
      'pages/pages.jsonl',
      'datapackage.json',
      'datapackage-digest.json',
    ]);
    const entry = (name: string) => unzip(['-p', first, name]);
    const datapackage = JSON.parse(entry('datapackage.json').toString()) as {
      wacz_version: string;
      resources: Array<{ path: string; hash: string; bytes: number }>;
    };
    expect(datapackage.wacz_version).toBe('1.1.1');
    expect(datapackage.resources.map((resource) => resource.path)).toEqual([
      'archive/capture-00001.warc.gz',
      'indexes/index.cdxj',
      'pages/pages.jsonl',
    ]);
    for (const resource of datapackage.resources) {
      const content = entry(resource.path);
      expect(resource.hash).toBe(`sha256:${sha256(content)}`);
      expect(resource.bytes).toBe(content.length);
    }
    expect(JSON.parse(entry('datapackage-digest.json').toString())).toEqual({
      path: 'datapackage.json',
      hash: `sha256:${sha256(entry('datapackage.json'))}`,
    });
    const warc = entry('archive/capture-00001.warc.gz');
    expect(warc).toEqual(await readFile(path.join(out, '_cv-snapshot', 'capture-00001.warc.gz')));

    // Every index line leads, by its offset and length, to exactly the response record of its URL.
    const lines = entry('indexes/index.cdxj').toString().trim().split('\n');
    expect([...lines].sort()).toEqual(lines);
    const urls = new Set<string>();
    for (const line of lines) {
      const [key, timestamp, json] = splitLine(line);
      const fields = JSON.parse(json) as { url: string; offset: string; length: string; status: string };
      expect(key).toBe(getSurt(fields.url));
      expect(timestamp).toMatch(/^\d{14}$/);
      const slice = warc.subarray(Number(fields.offset), Number(fields.offset) + Number(fields.length));
      const records = [];
      for await (const record of WARCParser.iterRecords([slice])) records.push(record);
      expect(records).toHaveLength(1);
      expect(records[0]!.warcType).toBe('response');
      expect(records[0]!.warcTargetURI).toBe(fields.url);
      expect(records[0]!.httpHeaders?.statusCode).toBe(Number(fields.status));
      urls.add(fields.url);
    }
    expect(urls.has(api.rootUrl)).toBe(true);
    const pages = entry('pages/pages.jsonl').toString().trim().split('\n').slice(1);
    const pageUrls = pages.map((page) => (JSON.parse(page) as { url: string }).url);
    expect(pageUrls[0]).toBe(api.rootUrl);
    expect(pageUrls.length).toBeGreaterThan(1);
    for (const url of pageUrls) expect(urls.has(url)).toBe(true);

    const verified = quietIo();
    expect(
      await verifyCommand.run(
        [first],
        { quiet: false, json: false, maxBytes: undefined, maxEntries: undefined },
        verified.io,
      ),
    ).toBe(0);
    expect(verified.output().stdout).toMatch(/is sound/);
  }, 120_000);

  it('verify names a WACZ whose capture was changed, and pack refuses a snapshot without a capture', async () => {
    const wacz = (await packWacz(out, { output: path.join(dir, 'changed.wacz') })).output;
    const bytes = await readFile(wacz);
    // A byte inside the capture file: past the local header of the first entry.
    const changed = Buffer.from(bytes);
    changed[200] = changed[200]! ^ 0xff;
    await writeFile(wacz, changed);
    const { problems } = await verifyWacz(wacz);
    expect(problems).toContain('archive/capture-00001.warc.gz does not match the CRC-32 the ZIP gives it.');
    expect(problems).toContain('archive/capture-00001.warc.gz does not match the sha256 datapackage.json gives it.');

    const plain = path.join(dir, 'plain');
    await crawlForTest(api.rootUrl, plain, { catalogue: 'none' });
    await expect(packWacz(plain)).rejects.toThrow(/holds no capture: a WACZ packs the WARC files a crawl with --warc/);
  }, 120_000);
});

function splitLine(line: string): [string, string, string] {
  const first = line.indexOf(' ');
  const second = line.indexOf(' ', first + 1);
  return [line.slice(0, first), line.slice(first + 1, second), line.slice(second + 1)];
}
