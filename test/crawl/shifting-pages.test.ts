/**
 * Pages that shift while they are crawled: a source whose list order is not stable, or that gains a
 * record during the crawl, lists a record on two pages and another on none. The crawl fetches the collection's
 * pages again until they agree, and fails (or, with --allow-partial, publishes with a finding) when they never do;
 * --resume refuses a source that changed since the crawl began; a page fetched again replaces its findings, so a
 * crawl, interrupted and resumed or not, counts them once. Each source here is a purpose-built server.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Layout } from '../../src/format/layout.js';
import { META_DIR } from '../../src/store/sums.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { runMain } from '../helpers/cli.js';
import type { Manifest } from '../../src/format/manifest.js';
import type { SnapshotDiff } from '../../src/diff/diff-format.js';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { treeHashes } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const PAGE_SIZE = 2;

interface ShiftingSource extends TestServer {
  root: string;
  /** The records the source holds, in its order: what a consistent view of `units` lists. */
  ids: string[];
  /** Term of each record (`unit<id>` unless changed). */
  terms: Map<string, string>;
  /** The id that a record's `links.self` names: its own unless changed (another is a `record.self` finding). */
  selfId: (id: string) => string;
  /** The root index's ETag and a version member of its body, to change the source's state. */
  version: number;
  /** How page `n` answers its `request`-th request (from 1): the ids it lists; the source's order by default. */
  page: (n: number, request: number) => string[];
  /** Called once a list page's answer is made. */
  onPage: (n: number, request: number) => void;
  /** Requests held until `release()`: a record's URL path → waiting answers. */
  holdRecord: string | null;
  held: Promise<void>;
  release: () => void;
}

async function startShiftingSource(count: number): Promise<ShiftingSource> {
  const requests = new Map<number, number>();
  let arrived = (): void => undefined;
  const waiting: Array<() => void> = [];
  const server = await startServer((req, res) => {
    const base = `http://${req.headers.host}/api/`;
    const url = decodeURIComponent(req.url ?? '');
    const record = (id: string) => ({
      type: 'Unit',
      id,
      attributes: { term: source.terms.get(id) ?? `unit${id}` },
      relationships: {},
      links: { self: `${base}units/${source.selfId(id)}/` },
    });
    if (url === '/api/') {
      res.setHeader('etag', `"v${source.version}"`);
      return sendJson(res, 200, { data: { units: `${base}units/` }, meta: { version: source.version } });
    }
    const list = /^\/api\/units\/(?:\?page\[number\]=(\d+))?$/.exec(url);
    if (list !== null) {
      const n = Number(list[1] ?? '1');
      const request = (requests.get(n) ?? 0) + 1;
      requests.set(n, request);
      const pages = Math.max(1, Math.ceil(source.ids.length / PAGE_SIZE));
      const link = (p: number) => `${base}units/?page[number]=${p}`;
      const body = {
        links: {
          first: link(1),
          last: link(pages),
          next: n < pages ? link(n + 1) : null,
          prev: n > 1 ? link(n - 1) : null,
        },
        data: source.page(n, request).map(record),
        meta: { pagination: { page: n, pages, count: source.ids.length } },
      };
      source.onPage(n, request);
      return sendJson(res, 200, body);
    }
    const one = /^\/api\/units\/(\d+)\/$/.exec(url);
    if (one !== null && source.ids.includes(one[1]!)) {
      const answer = () => sendJson(res, 200, { data: record(one[1]!) });
      if (source.holdRecord !== url) return answer();
      waiting.push(answer);
      arrived();
      return;
    }
    sendJson(res, 404, { errors: [{ status: '404' }] });
  });
  const source: ShiftingSource = {
    ...server,
    root: `${server.url}/api/`,
    ids: Array.from({ length: count }, (_, i) => String(i + 1)),
    terms: new Map(),
    selfId: (id) => id,
    version: 1,
    page: (n) => source.ids.slice((n - 1) * PAGE_SIZE, n * PAGE_SIZE),
    onPage: () => undefined,
    holdRecord: null,
    held: new Promise<void>((resolve) => (arrived = resolve)),
    release: () => {
      source.holdRecord = null;
      for (const answer of waiting.splice(0)) answer();
    },
    close: async () => {
      source.release();
      await server.close();
    },
  };
  return source;
}

let source: ShiftingSource | undefined;
afterEach(async () => {
  await source?.close();
  source = undefined;
});

async function collection(out: string, root: string): Promise<string[]> {
  const file = new Layout(root).collectionIndex('units').file;
  const index = JSON.parse(await readFile(path.join(out, ...file.split('/')), 'utf8')) as {
    data: Array<{ id: string }>;
    meta: { pagination: { count: number } };
  };
  expect(index.meta.pagination.count).toBe(index.data.length);
  return index.data.map((record) => record.id);
}

interface Report {
  findings: Array<{ rule: string; url: string; message: string }>;
}

async function report(out: string): Promise<Report> {
  return JSON.parse(await readFile(path.join(out, META_DIR, 'report.json'), 'utf8')) as Report;
}

describe('pages that shift while they are crawled', () => {
  // crawl --derive settles its lists before it derives anything from them: a record no page listed at first is
  // derived from the page fetched again.
  for (const derive of [false, true]) {
    const how = derive ? 'crawl --derive' : 'crawl';
    it(`a record shuffled onto two pages (${how}): fetched again, the collection is the real one`, async () => {
      source = await startShiftingSource(4);
      // The first answer of page 2 lists record 2 again (an unordered queryset) and never record 3.
      source.page = (n, request) => (n === 2 && request === 1 ? ['2', '4'] : source!.ids.slice((n - 1) * 2, n * 2));
      const out = path.join(await tempDir(), 'out');
      const result = await crawlForTest(source.root, out, derive ? { derive, verifySeed: 1 } : {});
      if (derive) expect(result.derive!.derived).toBeGreaterThan(0);
      expect(await collection(out, source.root)).toEqual(source.ids);
      // Record 3, which no page listed the first time, is in the snapshot.
      const record = JSON.parse(await readFile(path.join(out, 'api', 'units', '3', 'index.html'), 'utf8')) as {
        data: { attributes: { term: string } };
      };
      expect(record.data.attributes.term).toBe('unit3');
      expect(result.report.findings.filter((f) => f.rule.startsWith('pagination'))).toEqual([]);
      expect(result.documents).toBe(1 + 2 + 4);
      expect((await verifySnapshot(out)).problems).toEqual([]);
    });
  }

  it('pages fetched again replace the first ones in the journal: --resume counts each page once', async () => {
    source = await startShiftingSource(4);
    source.page = (n, request) => (n === 2 && request === 1 ? ['2', '4'] : source!.ids.slice((n - 1) * 2, n * 2));
    const out = path.join(await tempDir(), 'out');
    // --strict refuses (the source lacks the collections of spec 2.2) and keeps the finished work for --resume.
    await expect(crawlForTest(source.root, out, { strict: true })).rejects.toThrow(/--resume/);
    const resumed = await crawlForTest(source.root, out, { resume: true });
    expect(resumed.resumed).toBe(1 + 2 + 4);
    expect(resumed.documents).toBe(1 + 2 + 4);
    expect(resumed.collections.units).toEqual({ records: 4, pages: 2, documents: 6 });
    expect(await collection(out, source.root)).toEqual(source.ids);
  });

  it('a record added during the crawl (the counts disagree): fetched again, every record is in', async () => {
    source = await startShiftingSource(4);
    // Record 0 is added at the front once page 1 has been answered: later pages count 5 and list record 2 again.
    source.onPage = (n, request) => {
      if (n === 1 && request === 1) source!.ids.unshift('0');
    };
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(source.root, out, { concurrency: 1 });
    expect(source.ids).toEqual(['0', '1', '2', '3', '4']);
    expect(await collection(out, source.root)).toEqual(source.ids);
    expect(result.report.findings.filter((f) => f.rule.startsWith('pagination'))).toEqual([]);
    expect(result.collections.units).toMatchObject({ records: 5, pages: 3 });
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });

  it('pages that disagree every time: exit 1 naming the collection, the previous snapshot untouched', async () => {
    source = await startShiftingSource(4);
    const out = path.join(await tempDir(), 'out');
    expect((await runMain(['crawl', source.root, '--out', out, '--quiet'])).code).toBe(0);
    const previous = await treeHashes(out);

    // From now on page 1 lists record 3 with record 1 or 2 in turn, and page 2 lists 3 and 4: never one view.
    source.page = (n, request) => (n === 1 ? [request % 2 === 0 ? '1' : '2', '3'] : ['3', '4']);
    const failed = await runMain(['crawl', source.root, '--out', out, '--quiet']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('The pages of units disagreed each of the 4 times they were fetched');
    expect(failed.stderr).toContain('--allow-partial');
    expect(await treeHashes(out)).toEqual(previous);

    const partial = await runMain(['crawl', source.root, '--out', out, '--quiet', '--fresh', '--allow-partial']);
    expect(partial.stderr).toBe('');
    expect(partial.code).toBe(0);
    const shifted = (await report(out)).findings.filter((f) => f.rule === 'pagination.shifted');
    expect(shifted).toEqual([
      expect.objectContaining({ url: `${source.root}units/`, message: expect.stringContaining('The pages of units') }),
    ]);
    expect((await report(out)).findings.map((f) => f.rule)).toContain('pagination.duplicate');
  }, 60_000);

  it('--allow-partial publishes it: the manifest says partial and names it; verify, export, diff say why', async () => {
    source = await startShiftingSource(4);
    const dir = await tempDir();
    const before = path.join(dir, 'before');
    expect((await runMain(['crawl', source.root, '--out', before, '--quiet'])).code).toBe(0);

    // Page 1 lists record 3 with record 1 or 2 in turn, and page 2 lists 3 and 4: never one view.
    source.page = (n, request) => (n === 1 ? [request % 2 === 0 ? '1' : '2', '3'] : ['3', '4']);
    const out = path.join(dir, 'out');
    const crawled = await runMain(['crawl', source.root, '--out', out, '--allow-partial', '--json']);
    expect(crawled.code).toBe(0);
    expect(JSON.parse(crawled.stdout)).toMatchObject({ partial: true, missing: [], shifted: ['units'] });
    const table = await runMain(['crawl', source.root, '--out', out, '--allow-partial', '--fresh']);
    expect(table.stdout).toContain(
      'PARTIAL: the pages of 1 collection (units) disagreed every time they were fetched and it was published as ' +
        'fetched: it may hold some of its records twice and miss others',
    );
    const manifest = JSON.parse(await readFile(path.join(out, META_DIR, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest).toMatchObject({ partial: true, missing: [], shifted: ['units'] });
    // The catalogue's front page says so first.
    const front = await readFile(path.join(out, 'index.html'), 'utf8');
    expect(front).toContain(
      '<p class="partial"><strong>A partial snapshot:</strong> the pages of 1 collection (units) disagreed every time',
    );
    // The source holds four records; the snapshot lists one of them twice and lacks another, as the manifest says.
    const held = await collection(out, source.root);
    expect(held.filter((id) => id === '3')).toHaveLength(2);
    const lacking = source.ids.filter((id) => !held.includes(id));
    expect(lacking).toHaveLength(1);

    // Nothing is wrong with the snapshot but that: the report explains the record listed twice.
    expect((await verifySnapshot(out)).problems).toEqual([]);
    const verified = await runMain(['verify', out]);
    expect(verified.code).toBe(4);
    expect(verified.stderr).toContain(
      `${out} is a partial snapshot: the pages of 1 collection (units) disagreed every time they were fetched`,
    );
    expect(verified.stderr).not.toContain('could not be fetched');
    const verifiedJson = JSON.parse((await runMain(['verify', out, '--json'])).stdout) as Record<string, unknown>;
    expect(verifiedJson).toMatchObject({ status: 'partial', exitCode: 4, missing: [], shifted: ['units'] });

    const exported = await runMain(['export', out, '--format', 'csv', '--output', path.join(dir, 'units.csv')]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain(`${out} is a partial snapshot: the pages of 1 collection (units) disagreed`);
    expect(exported.stderr).not.toContain('list pages its manifest names as missing');

    // The record the shifted snapshot lacks may only have been missed: diff cannot call it removed.
    const diffed = JSON.parse((await runMain(['diff', before, out, '--format', 'json'])).stdout) as SnapshotDiff;
    expect(diffed.new).toMatchObject({ partial: true, shifted: ['units'] });
    // The snapshot before has no `shifted` member, as manifests written before it: it reads as none.
    const old = JSON.parse(await readFile(path.join(before, META_DIR, 'manifest.json'), 'utf8')) as Manifest;
    expect(Object.hasOwn(old, 'shifted')).toBe(false);
    expect(diffed.old).toMatchObject({ partial: false, shifted: [] });
    const [unitsDiff] = diffed.collections;
    expect(unitsDiff!.removed).toEqual([]);
    expect(unitsDiff!.notFetched.map((record) => record.id)).toEqual(lacking);
    const notes = (await runMain(['diff', before, out])).stdout;
    expect(notes).toContain('**partial** (the pages of `units` shifted)');
    expect(notes).toContain('The new snapshot is partial: the pages of this collection disagreed every time');
  }, 60_000);

  it('verify finds a record listed twice that the report does not explain', async () => {
    source = await startShiftingSource(4);
    // The same wrong answer every time: the source's own fault, mirrored with its findings.
    source.page = (n) => (n === 1 ? ['1', '2'] : ['2', '4']);
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(source.root, out);
    const rules = result.report.findings.map((f) => f.rule).filter((rule) => rule.startsWith('pagination'));
    expect(rules).toEqual(['pagination.count', 'pagination.duplicate']);
    expect((await verifySnapshot(out)).problems).toEqual([]);

    // A snapshot whose report says nothing of it (as an earlier version wrote it): verify is not satisfied.
    const reportFile = path.join(out, META_DIR, 'report.json');
    const written = JSON.parse(await readFile(reportFile, 'utf8')) as Report;
    const text = JSON.stringify({ ...written, findings: written.findings.filter((f) => !f.rule.startsWith('pagi')) });
    await writeFile(reportFile, text);
    const sumsFile = path.join(out, META_DIR, 'SHA256SUMS');
    const digest = createHash('sha256').update(text).digest('hex');
    await writeFile(
      sumsFile,
      (await readFile(sumsFile, 'utf8')).replace(/^[0-9a-f]{64}( {2}_cv-snapshot\/report\.json)$/m, `${digest}$1`),
    );
    const problems = (await verifySnapshot(out)).problems.join('\n');
    expect(problems).not.toContain('was changed');
    expect(problems).toMatch(/units\/\?page\[number\]=2 at \/data\/0 breaks pagination\.duplicate: units lists Unit 2/);
  });
});

describe('a page fetched again replaces its findings', () => {
  /** Record 1's `links.self` names record 2: a `record.self` finding on page 1, whatever page 2 says. */
  const faulty = (shifted: ShiftingSource) => (shifted.selfId = (id) => (id === '1' ? '2' : id));
  /** The first answer of page 2 lists record 2 again and never record 3; every later one is right. */
  const shuffleOnce = (shifted: ShiftingSource) => {
    let shuffled = false;
    shifted.page = (n) => {
      if (n !== 2) return shifted.ids.slice(0, 2);
      if (shuffled) return shifted.ids.slice(2, 4);
      shuffled = true;
      return ['2', '4'];
    };
  };
  /** What the report and the manifest say of the findings, the part that does not depend on the folder. */
  async function findingsOf(out: string) {
    const written = JSON.parse(await readFile(path.join(out, META_DIR, 'report.json'), 'utf8')) as Report & {
      errors: number;
      warnings: number;
      rules: unknown;
    };
    const manifest = JSON.parse(await readFile(path.join(out, META_DIR, 'manifest.json'), 'utf8')) as Manifest;
    const { errors, warnings, rules, findings } = written;
    return { errors, warnings, rules, findings, validation: manifest.validation };
  }

  /** The faulty source crawled once before it shifts: in `dir`, with the findings every later crawl must count. */
  async function baseline(options: Parameters<typeof crawlForTest>[2] = {}) {
    const shifting = await startShiftingSource(4);
    source = shifting; // closed after the test
    faulty(shifting);
    const dir = await tempDir();
    await crawlForTest(shifting.root, path.join(dir, 'once'), options);
    return { shifting, dir, once: await findingsOf(path.join(dir, 'once')) };
  }

  it('in one crawl: the findings of a page that shifted once are those of a crawl of the settled source', async () => {
    const { shifting, dir, once } = await baseline();
    expect(once.rules).toHaveProperty(['record.self', 'errors'], 1);

    shuffleOnce(shifting);
    await crawlForTest(shifting.root, path.join(dir, 'shifted'));
    expect(await findingsOf(path.join(dir, 'shifted'))).toEqual(once);
  });

  it('interrupted, then resumed: the report and the manifest count what one uninterrupted crawl counts', async () => {
    const { shifting, dir, once } = await baseline();

    // Interrupted once both pages are stored (page 2 shuffled) and record 4 is asked for, before the pages settle.
    shuffleOnce(shifting);
    const out = path.join(dir, 'resumed');
    shifting.holdRecord = '/api/units/4/';
    const controller = new AbortController();
    void shifting.held.then(() => controller.abort('SIGINT'));
    await expect(crawlForTest(shifting.root, out, { signal: controller.signal })).rejects.toThrow(/Interrupted/);
    shifting.release();
    const resumed = await crawlForTest(shifting.root, out, { resume: true });
    expect(resumed.resumed).toBeGreaterThan(0);
    expect(await findingsOf(out)).toEqual(once);
  });

  it('failed after the pages settled, then resumed: a page journaled twice counts as its second answer', async () => {
    const { shifting, dir, once } = await baseline();

    shuffleOnce(shifting);
    const out = path.join(dir, 'resumed');
    // --strict refuses (the source lacks the collections of spec 2.2) and keeps the finished work for --resume.
    await expect(crawlForTest(shifting.root, out, { strict: true })).rejects.toThrow(/--resume/);
    await crawlForTest(shifting.root, out, { resume: true });
    expect(await findingsOf(out)).toEqual(once);
  });

  it('crawl --derive settles its lists the same way: the findings count once', async () => {
    const { shifting, dir, once } = await baseline({ derive: true, verifySeed: 1 });
    expect(once.rules).toHaveProperty(['record.self', 'errors'], 1);

    shuffleOnce(shifting);
    await crawlForTest(shifting.root, path.join(dir, 'shifted'), { derive: true, verifySeed: 1 });
    expect(await findingsOf(path.join(dir, 'shifted'))).toEqual(once);
  });
});

describe('crawl --derive and pages that shift', () => {
  it('pages that never agree: refused as in a full crawl, or published as partial (--allow-partial)', async () => {
    source = await startShiftingSource(4);
    const out = path.join(await tempDir(), 'out');
    expect((await runMain(['crawl', source.root, '--out', out, '--quiet'])).code).toBe(0);
    const previous = await treeHashes(out);

    source.page = (n, request) => (n === 1 ? [request % 2 === 0 ? '1' : '2', '3'] : ['3', '4']);
    const failed = await runMain(['crawl', source.root, '--out', out, '--quiet', '--derive']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('The pages of units disagreed each of the 4 times they were fetched');
    expect(await treeHashes(out)).toEqual(previous);

    const partial = await runMain([
      'crawl',
      source.root,
      '--out',
      out,
      '--derive',
      '--fresh',
      '--allow-partial',
      '--json',
    ]);
    expect(partial.code).toBe(0);
    expect(JSON.parse(partial.stdout)).toMatchObject({ partial: true, shifted: ['units'] });
    expect((await report(out)).findings.map((f) => f.rule)).toContain('pagination.shifted');
  }, 60_000);
});

describe('--resume after the source moved on', () => {
  it('refuses to mix two states, with the command that starts afresh', async () => {
    source = await startShiftingSource(9);
    const out = path.join(await tempDir(), 'out');
    source.holdRecord = '/api/units/9/';
    const controller = new AbortController();
    void source.held.then(() => controller.abort('SIGINT'));
    await expect(crawlForTest(source.root, out, { signal: controller.signal })).rejects.toThrow(
      /Interrupted by SIGINT/,
    );
    source.release();

    // The source moves on: a new state of the root index, and record 9 renamed.
    source.version = 2;
    source.terms.set('9', 'new9');
    const resumed = await runMain(['crawl', source.root, '--out', out, '--resume', '--quiet']);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain(`The source at ${source.root} has changed since the interrupted crawl began`);
    expect(resumed.stderr).toContain(`cv-snapshot crawl ${source.root} --out ${out} --fresh`);

    const fresh = await runMain(['crawl', source.root, '--out', out, '--fresh', '--quiet']);
    expect(fresh.code).toBe(0);
    const list = await readFile(path.join(out, new Layout(source.root).collectionIndex('units').file), 'utf8');
    const record = await readFile(path.join(out, 'api', 'units', '9', 'index.html'), 'utf8');
    expect(list).toContain('"new9"');
    expect(list).not.toContain('"unit9"');
    expect(record).toContain('"new9"');
  }, 60_000);

  it('refuses when a collection counts other records than it did, the root index unchanged', async () => {
    source = await startShiftingSource(9);
    const out = path.join(await tempDir(), 'out');
    source.holdRecord = '/api/units/9/';
    const controller = new AbortController();
    void source.held.then(() => controller.abort('SIGINT'));
    await expect(crawlForTest(source.root, out, { signal: controller.signal })).rejects.toThrow(/Interrupted/);
    source.release();
    source.ids.push('10');
    const resumed = await runMain(['crawl', source.root, '--out', out, '--resume', '--quiet']);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain('units counted 9 records and counts 10 now');
  }, 60_000);
});
