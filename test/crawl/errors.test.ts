/**
 * Bad input gets a clear error that names the URL and what to try, a non-zero exit, and the previous contents of
 * --out untouched.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClock } from '../../src/clock.js';
import { CrawlStoppedError, FetchError, NotJsonError, NotRootIndexError, OutputDirError, StrictValidationError, UsageError } from '../../src/errors.js';
import { startSampleApi } from '../../src/sample-api/index.js';
import { createSnapshot } from '../../src/snapshot/create-snapshot.js';
import { existsSync } from 'node:fs';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { treeHashes } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

/** An --out holding a previous snapshot, and its hashes, to prove a failed run leaves it exactly as it was. */
async function previousSnapshot(): Promise<{ out: string; before: Record<string, string> }> {
  const api = await startSampleApi({ records: 1, pageSize: 5 });
  const out = path.join(await tempDir(), 'out');
  try {
    await createSnapshot({ rootUrl: api.rootUrl, out, clock: createClock({}) });
  } finally {
    await api.close();
  }
  return { out, before: await treeHashes(out) };
}

function crawlOnce(rootUrl: string, out: string, extra = {}) {
  return createSnapshot({ rootUrl, out, retries: 1, backoffBaseMs: 1, timeoutMs: 2000, ...extra });
}

describe('a root URL that is not a CV root index', () => {
  it('HTML (the browsable page) is refused with a hint, and --out is untouched', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, '<html><body>API</body></html>', 'text/html'));
    const { out, before } = await previousSnapshot();
    const error = await crawlOnce(`${server.url}/sms/cv/api/v1/?format=api`, out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotJsonError);
    expect((error as Error).message).toContain(`${server.url}/sms/cv/api/v1/`);
    expect((error as Error).message).toMatch(/format=api/);
    expect(await treeHashes(out)).toEqual(before);
    expect(existsSync(`${out}.staging`)).toBe(false);
  });

  it('JSON that is not a root index is refused', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { data: [{ type: 'Unit', id: '1' }] }));
    const error = await crawlOnce(`${server.url}/cv/api/v1/`, path.join(await tempDir(), 'out')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotRootIndexError);
    expect((error as Error).message).toContain(`${server.url}/cv/api/v1/ is not the root index`);
  });

  it('a 404 root names the URL and the status', async () => {
    const server = await serve((_req, res) => sendJson(res, 404, { errors: [{ status: '404' }] }));
    const error = await crawlOnce(`${server.url}/nope/`, path.join(await tempDir(), 'out')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as Error).message).toContain(`${server.url}/nope/ could not be fetched: HTTP 404`);
  });

  it('a URL that is not http(s) is a usage error', async () => {
    await expect(crawlOnce('ftp://example.org/', path.join(await tempDir(), 'out'))).rejects.toBeInstanceOf(UsageError);
  });
});

describe('a failure in the middle of a crawl', () => {
  it('a document that keeps answering 500 fails the crawl with its URL, and --out is untouched', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/api/') return sendJson(res, 200, { data: { units: `http://${req.headers.host}/api/units/` } });
      sendJson(res, 500, { errors: [{ status: '500' }] });
    });
    const { out, before } = await previousSnapshot();
    const error = await crawlOnce(`${server.url}/api/`, out, { retries: 2 }).catch((e: unknown) => e);
    // The root was fetched, so the work is kept for --resume and the message says so.
    expect(error).toBeInstanceOf(CrawlStoppedError);
    expect((error as CrawlStoppedError).cause).toBeInstanceOf(FetchError);
    expect((error as Error).message).toContain(`${server.url}/api/units/ could not be fetched: HTTP 500 (after 3 attempts)`);
    expect((error as Error).message).toContain('--resume');
    expect(existsSync(`${out}.staging`)).toBe(true);
    expect(server.requests.filter((u) => u === '/api/units/')).toHaveLength(3);
    expect(await treeHashes(out)).toEqual(before);
  });

  it('a linked document that is HTML fails the crawl with its URL', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/api/') return sendJson(res, 200, { data: { units: `http://${req.headers.host}/api/units/` } });
      sendJson(res, 200, '<!doctype html><p>hi', 'text/html; charset=utf-8');
    });
    const error = await crawlOnce(`${server.url}/api/`, path.join(await tempDir(), 'out')).catch((e: unknown) => e);
    expect((error as CrawlStoppedError).cause).toBeInstanceOf(NotJsonError);
    expect((error as Error).message).toContain(`${server.url}/api/units/ did not answer with JSON`);
  });
});

describe('--strict and broken documents', () => {
  const brokenSource = () =>
    serve((req, res) => {
      const base = `http://${req.headers.host}/api/`;
      if (req.url === '/api/') return sendJson(res, 200, { data: { licenses: `${base}licenses/` } });
      if (req.url === '/api/licenses/') {
        return sendJson(res, 200, {
          links: { first: `${base}licenses/`, last: `${base}licenses/`, next: null, prev: null },
          data: [{ type: 'License', id: '1', attributes: { term: 'CC-BY', status: 42 }, relationships: {}, links: { self: `${base}licenses/1/` } }],
          meta: { pagination: { page: 1, pages: 1, count: 1 } },
        });
      }
      sendJson(res, 404, { errors: [{ status: '404' }] });
    });

  it('still writes the faithful mirror without --strict, with the findings in the report', async () => {
    const server = await brokenSource();
    const out = path.join(await tempDir(), 'out');
    const result = await crawlOnce(`${server.url}/api/`, out);
    expect(result.report.errors).toBeGreaterThan(0);
    const finding = result.report.findings.find((f) => f.url === `${server.url}/api/licenses/` && f.pointer.startsWith('/data/0/attributes'));
    expect(finding).toBeDefined();
    expect(existsSync(path.join(out, 'api/licenses/page/1/index.html'))).toBe(true);
  });

  it('publishes nothing with --strict and says where the report is', async () => {
    const server = await brokenSource();
    const { out, before } = await previousSnapshot();
    const error = await crawlOnce(`${server.url}/api/`, out, { strict: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StrictValidationError);
    expect((error as Error).message).toContain('report.json');
    expect(await treeHashes(out)).toEqual(before);
  });
});

describe('--out safety', () => {
  it('refuses to replace a directory that is not a snapshot', async () => {
    const api = await startSampleApi({ records: 1 });
    try {
      const out = path.join(await tempDir(), 'precious');
      await mkdir(out);
      await writeFile(path.join(out, 'thesis.tex'), 'years of work');
      await expect(createSnapshot({ rootUrl: api.rootUrl, out })).rejects.toBeInstanceOf(OutputDirError);
      expect(await treeHashes(out)).toEqual({ 'thesis.tex': expect.any(String) });
    } finally {
      await api.close();
    }
  });

  it('asks for --fresh over a leftover staging directory', async () => {
    const api = await startSampleApi({ records: 1 });
    try {
      const out = path.join(await tempDir(), 'out');
      await mkdir(`${out}.staging`);
      await expect(createSnapshot({ rootUrl: api.rootUrl, out })).rejects.toThrow(/--fresh/);
      await createSnapshot({ rootUrl: api.rootUrl, out, fresh: true });
      expect(existsSync(`${out}.staging`)).toBe(false);
    } finally {
      await api.close();
    }
  });
});
