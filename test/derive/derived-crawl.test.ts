/**
 * `crawl --derive` against the sample API at its defaults: the full crawl's tree for a fraction of the
 * requests, verify passes, the seed reproduces the sample, an interrupted derived crawl resumes, and a record that
 * no list holds is fetched.
 */
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summaryTable } from '../../src/cli/summary.js';
import { InterruptedError } from '../../src/util/errors.js';
import type { DeriveManifest } from '../../src/format/derive-manifest.js';
import type { Finding } from '../../src/validate/finding.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { runMain } from '../helpers/cli.js';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { readJson } from '../helpers/snapshot.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { clock, compareCrawls, mirrored, requestedSince, snapshot } from './compare-crawls.js';

let dir: string;
let removeDir: () => Promise<void>;
/** A full and a derived crawl of the sample API at its defaults; the interrupted crawl is of the same source. */
let result: Awaited<ReturnType<typeof compareCrawls>>;

beforeAll(async () => {
  ({ dir, remove: removeDir } = await suiteDir());
  result = await compareCrawls(dir, { records: 2 });
});
afterAll(async () => {
  await result.api.close();
  await removeDir();
});

describe('crawl --derive at the sample API defaults', () => {
  it('writes the full crawl tree byte for byte, and verify passes', () => {
    expect(result.derivedTree).toEqual(result.fullTree);
    expect(result.problems).toEqual([]);
    expect(result.derived.documents).toBe(result.full.documents);
    expect(result.mismatches).toEqual([]);
  });

  it('fetches the root, the lists, the links-only relationships and the sample, and derives the rest', () => {
    const derive = result.derived.derive!;
    const root = result.api.rootUrl;
    const lists = result.requested.filter((url) => url === root || /\/v1\/[^/]+\/(\?[^/]*)?$/.test(url));
    // Every request is the root, a list page, or a document the manifest counts as fetched, once each.
    expect(new Set(result.requested).size).toBe(result.requested.length);
    expect(result.derived.requests).toBe(lists.length + derive.fetched);
    expect(derive.requests).toBe(result.derived.requests);
    expect(derive.derived + derive.fetched + lists.length).toBe(result.full.documents);
    // spec 2.4: successor is given with links only: each of its relationship documents is fetched, its related
    // documents are derived from the linkage they give.
    const successors = (urls: string[]) => urls.filter((url) => url.endsWith('/relationships/successor'));
    const all = result.api.documentUrls().filter((url) => url.includes('/relationships/successor?'));
    expect(successors(result.requested)).toHaveLength(all.length);
    expect(result.kind('units', 'relationship-to-one').fetchedBecause['links-only']).toBe(2);
    expect(result.kind('units', 'record')).toMatchObject({ status: 'derived', shape: '{data: entry}' });
    expect(derive.derived).toBeGreaterThan(derive.fetched);
    expect(summaryTable(result.derived)).toContain(
      `Derived ${derive.derived} documents and fetched ${derive.fetched} below the records, in ` +
        `${derive.requests} requests (sample 2%, seed 3).`,
    );
  });

  it('takes the same sample again with the recorded seed, and another with another seed', async () => {
    const again = await compareSample(result.api, 3);
    const other = await compareSample(result.api, 4);
    const first = result.requested.sort();
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });
});

/** The URLs a derived crawl with `seed` asks for, sorted. */
async function compareSample(api: SampleApi, seed: number): Promise<string[]> {
  const before = api.requestLog.length;
  const derived = await snapshot(api.rootUrl, dir, { derive: true, verifySeed: seed });
  expect(derived.derive!.seed).toBe(seed);
  expect((await readJson(derived.out, '_cv-snapshot/manifest.json')) as object).toMatchObject({ derive: { seed } });
  return requestedSince(api, before).sort();
}

describe('an interrupted derived crawl', () => {
  it('resumes where it stopped, fetches nothing again, and ends with the full crawl tree', async () => {
    const { api, full } = result;
    const out = path.join(dir, 'resumed');
    const controller = new AbortController();
    // The progress line reports derived documents: stop once some are derived and most are not.
    const progress = new Writable({
      write(chunk: Buffer, _encoding, done) {
        const derived = /\((\d+) derived/.exec(chunk.toString());
        if (derived !== null && Number(derived[1]) > 0) controller.abort('SIGINT');
        done();
      },
    });
    const options = { derive: true, verifySeed: 9, out, clock } as const;
    const stopped = snapshot(api.rootUrl, dir, {
      ...options,
      signal: controller.signal,
      progress: { stream: progress, mode: 'lines', intervalMs: 1 },
    });
    await expect(stopped).rejects.toBeInstanceOf(InterruptedError);
    const before = api.requestLog.length;
    const resumed = await snapshot(api.rootUrl, dir, { ...options, resume: true });
    expect(resumed.resumed).toBeGreaterThan(0);
    // The lists, the links-only relationships and the sample were all fetched before deriving began. Only the
    // source's state is checked again (the root index and page 1 of each collection, each once), not stored.
    const again = requestedSince(api, before);
    expect(again.filter((url) => !/^(?:[a-z-]+\/)?$/.test(url.slice(api.rootUrl.length)))).toEqual([]);
    expect(new Set(again).size).toBe(again.length);
    expect(resumed.derive!.derived).toBeGreaterThan(0);
    expect(await mirrored(out)).toEqual(await mirrored(full.out));
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });
});

describe('a record that no list holds', () => {
  let api: SampleApi;
  let proxy: TestServer;
  let hidden: string;
  let fullOut: string;
  let fullMissing: string[];
  let derivedMissing: string[];
  let countries: DeriveManifest['kinds'][number];
  let derivedOut: string;
  beforeAll(async () => {
    api = await startSampleApi({ records: 2 });
    // The source's first global provenance is left out of its list; records still link to it.
    proxy = await startServer(async (req, res) => {
      // And the record documents of one collection always fail: with --allow-partial they are missing.
      if (/^\/sms\/cv\/api\/v1\/countries\/\d+\/$/.test(req.url ?? '')) {
        sendJson(res, 500, { errors: [{ status: '500' }] });
        return;
      }
      const answer = await fetch(`${api.rootUrl.replace(/\/sms\/.*$/, '')}${req.url}`, {
        headers: { accept: 'application/vnd.api+json' },
      });
      let text = (await answer.text()).split(api.rootUrl.replace(/\/sms\/.*$/, '')).join(proxy.url);
      if (/^\/sms\/cv\/api\/v1\/globalprovenances\/(\?|$)/.test(req.url ?? '')) {
        const list = JSON.parse(text) as { data: Array<{ links: { self: string } }> };
        hidden = list.data.shift()!.links.self;
        text = JSON.stringify(list);
      }
      // And every unit's successor gives its related link outside the root, in every document that holds it.
      text = text.replace(
        /"related":"[^"]*\/units\/(\d+)\/successor\/[^"]*"/g,
        '"related":"http://elsewhere.test/$1/"',
      );
      sendJson(res, answer.status, text);
    });
  });
  afterAll(async () => {
    await proxy.close();
    await api.close();
  });

  it('is fetched, with the related documents that hold it, and the tree is the full crawl tree', async () => {
    const root = `${proxy.url}/sms/cv/api/v1/`;
    const partial = { allowPartial: true, retries: 0 };
    const full = await snapshot(root, dir, partial);
    const before = proxy.requests.length;
    const derived = await snapshot(root, dir, { ...partial, derive: true, verifySeed: 1 });
    [fullOut, derivedOut] = [full.out, derived.out];
    fullMissing = full.missing;
    countries = derived.derive!.kinds.find((kind) => kind.collection === 'countries' && kind.kind === 'record')!;
    derivedMissing = derived.missing;
    const requested = proxy.requests.slice(before);
    expect(requested).toContain(new URL(hidden).pathname);
    expect(await mirrored(derived.out)).toEqual(await mirrored(full.out));
    const related = derived.derive!.kinds.filter((kind) => (kind.fetchedBecause['target-not-in-lists'] ?? 0) > 0);
    expect(related.length).toBeGreaterThan(0);
    expect(related.every((kind) => kind.kind === 'related-to-one')).toBe(true);
  });

  it('derives nothing of a kind whose samples could not be fetched, and misses what the full crawl misses', () => {
    expect(fullMissing.length).toBeGreaterThan(0);
    expect(derivedMissing).toEqual(fullMissing);
    expect(countries).toMatchObject({ status: 'fetched', derived: 0, fetched: countries.documents });
    expect(countries.fetchedBecause.unchecked).toBe(countries.documents - (countries.fetchedBecause.sample ?? 0));
  });

  it('reports what the full crawl reports, such as a derived document holding a link outside the root', async () => {
    const report = async (out: string) => (await readJson(out, '_cv-snapshot/report.json')) as { findings: Finding[] };
    const [full, derived] = [await report(fullOut), await report(derivedOut)];
    const outside = derived.findings.filter((finding) => finding.rule === 'scope.outside');
    // The unit documents hold the link: the list page, each unit's record document (derived), and the related
    // documents that hold a unit (derived too).
    expect(outside.some((finding) => /\/units\/$/.test(finding.url))).toBe(true);
    expect(outside.some((finding) => /\/units\/\d+\/$/.test(finding.url))).toBe(true);
    expect(outside.some((finding) => /\/unit\/$/.test(finding.url))).toBe(true);
    expect(derived.findings).toEqual(full.findings);
  });
});

describe('a source that fails now and then', () => {
  it('is retried as in a full crawl, and the tree is the same', async () => {
    const result = await compareCrawls(
      dir,
      { records: 1, faultRate: 0.2, stallMs: 300, retryAfterSeconds: 0 },
      {},
      { backoffBaseMs: 1, timeoutMs: 200 },
    );
    await result.api.close();
    expect(result.derived.retries).toBeGreaterThan(0);
    expect(result.derivedTree).toEqual(result.fullTree);
    expect(result.problems).toEqual([]);
    // Retries are not requests of their own in the manifest: one per document fetched.
    expect(result.derived.derive!.requests).toBe(result.derived.requests - result.derived.retries);
  });
});

describe('the command line', () => {
  it('refuses a sample size it cannot read, and a sample without --derive, before anything runs', async () => {
    const bad = await runMain(['crawl', 'http://127.0.0.1:9/api/', '--derive', '--verify-sample', '2.5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--verify-sample takes a share such as 5% or 0.05');
    const alone = await runMain(['crawl', 'http://127.0.0.1:9/api/', '--verify-sample', '5%', '--out', dir]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('add --derive');
  });
});
