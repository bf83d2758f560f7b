/**
 * What a person reads after `crawl`: the documents it crawled and those the snapshot holds, the same figure `verify`
 * gives; and, after a second crawl into the same --out, one line of what changed, with the figures the sample API's
 * data definition gives for its next release (SampleData.changes), not the comparison's own.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleData, startSampleApi } from '../../src/sample-api/index.js';
import { runCli, runMain } from '../helpers/cli.js';
import { suiteDir } from '../helpers/temp-dir.js';

const RECORDS = 5;
let dir: string;
let removeSuite: () => Promise<void>;
let out: string;
let first: string;
let second: string;

async function crawlRelease(release: number): Promise<string> {
  const api = await startSampleApi({ records: RECORDS, release, logRequests: false });
  try {
    const result = await runCli(['crawl', api.rootUrl, '--out', out, '--quiet']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  } finally {
    await api.close();
  }
}

beforeAll(async () => {
  ({ dir, remove: removeSuite } = await suiteDir());
  out = path.join(dir, 'cv-mirror');
  first = await crawlRelease(0);
  second = await crawlRelease(1);
}, 120_000);
afterAll(() => removeSuite());

describe("the crawl's summary", () => {
  it('says which documents it counts, and holds the figure verify gives', async () => {
    const collections = createSampleData({ records: RECORDS, release: 1 }).collections.length;
    const lines = new RegExp(
      String.raw`^(\d+) documents crawled in [0-9.]+ s \(.*\)\.\n` +
        String.raw`The snapshot holds (\d+) documents: those and the (\d+) collection lists built from their pages\.$`,
      'm',
    );
    const [, crawled, held, built] = lines.exec(second)!.map(Number);
    // One list of each collection, built from its pages, beside what the crawl read.
    expect(built).toBe(collections);
    expect(held).toBe(crawled! + collections);
    const verify = await runMain(['verify', out]);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(new RegExp(` links in ${held} documents resolve`));
  });

  it('says nothing of changes after a first crawl into --out', () => {
    expect(first).not.toMatch(/^Changes/m);
  });

  it('ends a second crawl into the same --out with the records added, removed and changed', () => {
    const { changes } = createSampleData({ records: RECORDS, release: 1 });
    const added = changes.filter((c) => c.kind === 'added').length;
    const removed = changes.filter((c) => c.kind === 'removed').length;
    const edited = changes.filter((c) => c.kind === 'attribute' || c.kind === 'relationship');
    const changed = new Set(edited.map((c) => `${c.collection}/${c.id}`)).size;
    const lines = second.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^Changes since the previous snapshot \\(.+\\): ${added} records added, ${removed} removed, ${changed} ` +
          'changed\\.$',
      ),
    );
    expect(lines.filter((l) => l.startsWith('Changes'))).toHaveLength(1);
  });
});
