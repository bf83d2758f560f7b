/**
 * Bad input gets a clear error that names the URL and what to try, a non-zero exit, and the previous contents of
 * --out untouched.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClock } from '../../src/util/clock.js';
import {
  CrawlStoppedError,
  FetchError,
  InterruptedError,
  NotJsonError,
  NotRootIndexError,
  OutputDirError,
  StrictValidationError,
  UsageError,
} from '../../src/util/errors.js';
import { existsSync } from 'node:fs';
import { closedAfterEach, sendJson, serversClosedAfterEach } from '../helpers/http-server.js';
import { runMain } from '../helpers/cli.js';
import { crawlForTest } from '../helpers/crawl.js';
import { treeHashes } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTinySource } from '../helpers/tiny-source.js';

const serve = serversClosedAfterEach();
const tinySource = closedAfterEach(startTinySource);

/** An --out holding a previous snapshot, and its hashes, to prove a failed run leaves it exactly as it was. */
async function previousSnapshot(): Promise<{ out: string; before: Record<string, string> }> {
  const source = await tinySource({ term: 'previous' });
  const out = path.join(await tempDir(), 'out');
  await crawlForTest(source.root, out);
  return { out, before: await treeHashes(out) };
}

describe('a root URL that is not a CV root index', () => {
  it('HTML (the browsable page) is refused with a hint, and --out is untouched', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, '<html><body>API</body></html>', 'text/html'));
    const { out, before } = await previousSnapshot();
    const error = await crawlForTest(`${server.url}/sms/cv/api/v1/?format=api`, out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotJsonError);
    expect((error as Error).message).toContain(`${server.url}/sms/cv/api/v1/`);
    expect((error as Error).message).toMatch(/format=api/);
    expect(await treeHashes(out)).toEqual(before);
    expect(existsSync(`${out}.staging`)).toBe(false);
  });

  it('JSON that is not a root index is refused', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { data: [{ type: 'Unit', id: '1' }] }));
    const error = await crawlForTest(`${server.url}/cv/api/v1/`, path.join(await tempDir(), 'out')).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotRootIndexError);
    expect((error as Error).message).toContain(`${server.url}/cv/api/v1/ is not the root index`);
  });

  it('a 404 root names the URL and the status', async () => {
    const server = await serve((_req, res) => sendJson(res, 404, { errors: [{ status: '404' }] }));
    const error = await crawlForTest(`${server.url}/nope/`, path.join(await tempDir(), 'out')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as Error).message).toContain(`${server.url}/nope/ could not be fetched: HTTP 404`);
  });

  it('a URL that is not http(s) is a usage error', async () => {
    await expect(crawlForTest('ftp://example.org/', path.join(await tempDir(), 'out'))).rejects.toBeInstanceOf(
      UsageError,
    );
  });
});

describe('a failure in the middle of a crawl', () => {
  it('a document that keeps answering 500 fails the crawl with its URL, and --out is untouched', async () => {
    const server = await tinySource({ failing: ['units/'] });
    const { out, before } = await previousSnapshot();
    const error = await crawlForTest(server.root, out, { retries: 2, backoffBaseMs: 1 }).catch((e: unknown) => e);
    // The root was fetched, so the work is kept for --resume and the message says so.
    expect(error).toBeInstanceOf(CrawlStoppedError);
    expect((error as CrawlStoppedError).cause).toBeInstanceOf(FetchError);
    expect((error as Error).message).toContain(
      `${server.url}/api/units/ could not be fetched: HTTP 500 (after 3 attempts)`,
    );
    expect((error as Error).message).toContain('--resume');
    expect(existsSync(`${out}.staging`)).toBe(true);
    expect(server.requests.filter((u) => u === '/api/units/')).toHaveLength(3);
    expect(await treeHashes(out)).toEqual(before);
  });

  it('a linked document that is HTML fails the crawl with its URL', async () => {
    const server = await tinySource({
      answers: { 'units/': (res) => sendJson(res, 200, '<!doctype html><p>hi', 'text/html; charset=utf-8') },
    });
    const error = await crawlForTest(server.root, path.join(await tempDir(), 'out')).catch((e: unknown) => e);
    expect((error as CrawlStoppedError).cause).toBeInstanceOf(NotJsonError);
    expect((error as Error).message).toContain(`${server.url}/api/units/ did not answer with JSON`);
  });
});

/** A source whose one license breaks the schema (status 42): a validation error, nothing else wrong. */
const brokenSource = () =>
  tinySource({ collections: { licenses: [{ id: '1', term: 'CC-BY', attributes: { status: 42 } }] } });

describe('--strict and broken documents', () => {
  it('still writes the faithful mirror without --strict, with the findings in the report', async () => {
    const server = await brokenSource();
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(`${server.url}/api/`, out);
    expect(result.report.errors).toBeGreaterThan(0);
    const finding = result.report.findings.find(
      (f) => f.url === `${server.url}/api/licenses/` && f.pointer.startsWith('/data/0/attributes'),
    );
    expect(finding).toBeDefined();
    expect(existsSync(path.join(out, 'api/licenses/page/1/index.html'))).toBe(true);
  });

  it('publishes nothing with --strict and says where the report is', async () => {
    const server = await brokenSource();
    const { out, before } = await previousSnapshot();
    const error = await crawlForTest(`${server.url}/api/`, out, { strict: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StrictValidationError);
    expect((error as Error).message).toContain('report.json');
    expect(await treeHashes(out)).toEqual(before);
  });
});

describe('--out safety', () => {
  it('refuses to replace a directory that is not a snapshot', async () => {
    const source = await tinySource();
    const out = path.join(await tempDir(), 'precious');
    await mkdir(out);
    await writeFile(path.join(out, 'thesis.tex'), 'years of work');
    await expect(crawlForTest(source.root, out)).rejects.toBeInstanceOf(OutputDirError);
    expect(await treeHashes(out)).toEqual({ 'thesis.tex': expect.any(String) });
  });

  it('asks for --fresh over a leftover staging directory, and reuses an empty one', async () => {
    const source = await tinySource();
    const out = path.join(await tempDir(), 'out');
    await mkdir(path.join(`${out}.staging`, 'tree'), { recursive: true });
    await writeFile(path.join(`${out}.staging`, 'tree', 'kept'), 'work of an earlier run');
    await expect(crawlForTest(source.root, out)).rejects.toThrow(/--fresh/);
    expect(await readFile(path.join(`${out}.staging`, 'tree', 'kept'), 'utf8')).toBe('work of an earlier run');
    await crawlForTest(source.root, out, { fresh: true });
    expect(existsSync(`${out}.staging`)).toBe(false);

    // A staging directory without a tree holds no work (a kill came before the first document): no question asked.
    const empty = path.join(await tempDir(), 'out');
    await mkdir(`${empty}.staging`);
    await crawlForTest(source.root, empty);
    expect(existsSync(`${empty}.staging`)).toBe(false);
  });
});

describe('SOURCE_DATE_EPOCH', () => {
  it('is checked before anything is fetched: out of range or not a number exits 2 with a sentence', async () => {
    const source = await tinySource();
    const out = path.join(await tempDir(), 'out');
    const env = { SOURCE_DATE_EPOCH: '9999999999' };
    const result = await runMain(['crawl', source.root, '--out', out, '--quiet'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /SOURCE_DATE_EPOCH=9999999999 is too late: it must be a whole number of seconds since 1970 from 0 to 8589934591/,
    );
    for (const value of ['99999999999999999999999', '-1', '1.5', 'yesterday']) {
      expect(() => createClock({ SOURCE_DATE_EPOCH: value }), value).toThrow(UsageError);
      expect(() => createClock({ SOURCE_DATE_EPOCH: value }), value).toThrow(/from 0 to 8589934591/);
    }
    expect(source.requests).toEqual([]);
    expect(existsSync(`${out}.staging`)).toBe(false);
  });

  it('accepts the latest time an archive can hold, and pack then records it', async () => {
    const source = await tinySource();
    const out = path.join(await tempDir(), 'out');
    const env = { SOURCE_DATE_EPOCH: '8589934591' };
    expect((await runMain(['crawl', source.root, '--out', out, '--quiet'], { env })).code).toBe(0);
    const manifestText = await readFile(path.join(out, '_cv-snapshot', 'manifest.json'), 'utf8');
    const manifest = JSON.parse(manifestText) as { createdAt: string };
    expect(manifest.createdAt).toBe(new Date(8589934591 * 1000).toISOString());
    const packed = await runMain(['pack', out, '--output', path.join(path.dirname(out), 'out.tar.gz')]);
    expect(packed.stderr).toBe('');
    expect(packed.code).toBe(0);
  });
});

describe('messages that say what to do next', () => {
  it('--strict names the command that publishes the kept snapshot, which fetches only the state check', async () => {
    const server = await brokenSource();
    const out = path.join(await tempDir(), 'out');
    const strict = await runMain(['crawl', server.root, '--out', out, '--quiet', '--strict']);
    expect(strict.code).toBe(3);
    expect(strict.stderr).toContain(`The finished snapshot is kept in ${out}.staging`);
    expect(strict.stderr).toContain('run the same command without --strict and with --resume');
    const fetched = server.requests.length;

    const again = await runMain(['crawl', server.root, '--out', out, '--quiet', '--resume']);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    // Only the root index and page 1 of each collection, to check that the source is still in the same state.
    const checked = server.requests.slice(fetched);
    expect(checked.filter((url) => !/^\/api\/(?:[a-z-]+\/)?$/.test(url))).toEqual([]);
    expect(new Set(checked).size).toBe(checked.length);
    expect(existsSync(path.join(out, 'api', 'licenses', 'page', '1', 'index.html'))).toBe(true);
  });

  it('--resume with other settings names each option that differs and both values', async () => {
    const server = await tinySource({ failing: ['units/'] });
    const out = path.join(await tempDir(), 'out');
    await expect(crawlForTest(server.root, out)).rejects.toBeInstanceOf(CrawlStoppedError);
    const error = await crawlForTest(server.root, out, {
      resume: true,
      links: 'absolute',
      baseUrl: 'https://cv.example.org/',
      collectionIndex: 'first-page',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputDirError);
    const message = (error as Error).message;
    expect(message).toContain('--links was relative and is now absolute');
    expect(message).toContain('--base-url was (none) and is now https://cv.example.org/');
    expect(message).toContain('--collection-index was complete and is now first-page');
    expect(message).not.toContain('the root URL');
    expect(message).not.toContain('{');
  });

  it('an interruption mentions the previous snapshot only when there is one', async () => {
    const source = await tinySource();
    const interrupted = async (out: string) => {
      const controller = new AbortController();
      const arrived = source.hold();
      const crawl = crawlForTest(source.root, out, { signal: controller.signal }).catch((e: unknown) => e);
      await arrived;
      controller.abort('SIGINT');
      source.release();
      return (await crawl) as Error;
    };
    const first = path.join(await tempDir(), 'first');
    const none = await interrupted(first);
    expect(none).toBeInstanceOf(InterruptedError);
    expect(none.message).toMatch(
      /^Interrupted by SIGINT; nothing was published\. The 2 documents fetched so far are kept/,
    );
    expect(none.message).not.toContain('untouched');

    await crawlForTest(source.root, first, { fresh: true });
    const some = await interrupted(first);
    expect(some.message).toContain(`nothing was published and the snapshot at ${first} is untouched.`);
  });

  it('a root URL without a scheme gets a hint to add http://', async () => {
    const out = path.join(await tempDir(), 'out');
    const schemeless = ['127.0.0.1:4100/sms/cv/api/v1/', 'localhost:4100/sms/cv/api/v1/', 'sms-cv.helmholtz.cloud/cv/'];
    for (const url of schemeless) {
      const error = await crawlForTest(url, out).catch((e: unknown) => e);
      expect(error, url).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain(`has no scheme: add http:// or https://, as in http://${url}`);
    }
  });

  it('a root URL with credentials is refused without repeating the password', async () => {
    const out = path.join(await tempDir(), 'out');
    const result = await runMain(['crawl', 'http://admin:s3cr3t-pw@127.0.0.1:4100/api/', '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('s3cr3t-pw');
    expect(result.stderr).toContain('http://***@127.0.0.1:4100/api/ holds a user name or password');
    expect(result.stderr).toContain('--header');
    const others = [
      'ftp://admin:s3cr3t-pw@127.0.0.1/api/',
      'admin:s3cr3t-pw@127.0.0.1:4100/api/',
      'http://admin:s3cr3t-pw@[::1/',
    ];
    for (const url of others) {
      const error = await crawlForTest(url, out).catch((e: unknown) => e);
      expect(error, url).toBeInstanceOf(UsageError);
      expect((error as Error).message, url).not.toContain('s3cr3t-pw');
      expect((error as Error).message, url).toContain('***@');
    }
  });

  it('a --base-url with credentials is refused before fetching, without repeating the password', async () => {
    const out = path.join(await tempDir(), 'out');
    const error = await crawlForTest('http://127.0.0.1:9/api/', out, {
      links: 'absolute',
      baseUrl: 'https://mirror:s3cr3t-pw@cv.example.org/',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('--base-url https://***@cv.example.org/ holds a user name or password');
    expect((error as Error).message).not.toContain('s3cr3t-pw');
    expect(existsSync(out)).toBe(false);
  });
});
