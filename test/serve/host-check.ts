/**
 * The static-host check (docs/snapshot-format.md#host-files): every document URL of a snapshot's tree, fetched from a
 * host serving the tree unchanged, answers 200 (after at most one redirect to the slash form) with `Content-Type:
 * application/vnd.api+json`, `Vary: Accept`, `X-Content-Type-Options: nosniff` and the stored bytes; records also
 * without their trailing slash; and the bare collection URL gives every record. Used against `npx serve`,
 * serve-handler under a sub-path, and Cloudflare's local engine (`wrangler pages dev`, `npm run check:hosts`).
 */
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import net from 'node:net';
import { Agent, request } from 'undici';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { Layout, INDEX_FILE } from '../../src/format/layout.js';
import { readManifest } from '../../src/format/manifest.js';
import { parseSums, SUMS_PATH } from '../../src/store/sums.js';
import { eachLimited } from '../sample-api/http.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const agent = new Agent({ connections: 8, keepAliveTimeout: 1000 });

export interface HostAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  redirects: number;
}

/** GET with at most `maxRedirects` redirects followed (each must stay on the host). */
export async function fetchFollowing(url: string, maxRedirects = 1): Promise<HostAnswer> {
  let target = url;
  for (let redirects = 0; ; redirects += 1) {
    const response = await request(target, { headers: { accept: 'application/vnd.api+json' }, dispatcher: agent });
    const body = Buffer.from(await response.body.arrayBuffer());
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const location = headers.location;
    if (response.statusCode >= 300 && response.statusCode < 400 && location !== undefined && redirects < maxRedirects) {
      target = new URL(location, target).href;
      continue;
    }
    return { status: response.statusCode, headers, body, redirects };
  }
}

/** A port free right now on 127.0.0.1, for servers that cannot be told to pick one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Polls until `url` answers at all (any status). */
export async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    try {
      const response = await request(url, { dispatcher: agent });
      await response.body.dump();
      return;
    } catch (error) {
      if (performance.now() > until) {
        throw new Error(`${url} did not answer within ${timeoutMs} ms: ${String(error)}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export interface HostCheck {
  /** Document URLs fetched. */
  checked: number;
  failures: string[];
}

const hasVaryAccept = (vary: string | undefined) =>
  (vary ?? '').split(',').some((token) => token.trim().toLowerCase() === 'accept');

/**
 * Checks every document of the snapshot at `dir` on a host that serves the tree at `base` (the URL of the tree's
 * root, ending in `/`).
 */
export async function checkStaticHost(dir: string, base: string): Promise<HostCheck> {
  const manifest = await readManifest(dir);
  const layout = new Layout(manifest.source.root);
  const prefix = layout.rootSegments().join('/');
  const files = [...parseSums(await readFile(path.join(dir, ...SUMS_PATH.split('/')), 'utf8')).keys()].filter(
    (file) => file.startsWith(`${prefix}/`) || file === `${prefix}/${INDEX_FILE}`,
  );
  const failures: string[] = [];
  const urls: Array<{ url: string; file: string }> = [];
  for (const file of files) {
    const servedPath = layout.servedPathOfFile(file);
    urls.push({ url: new URL(servedPath.slice(1), base).href, file });
    // spec 2.1 addresses end in `/`; clients (and the root without its slash) also ask without it.
    if (servedPath.endsWith('/')) urls.push({ url: new URL(servedPath.slice(1, -1), base).href, file });
  }
  await eachLimited(urls, 8, async ({ url, file }) => {
    const answer = await fetchFollowing(url);
    const expected = await readFile(path.join(dir, ...file.split('/')));
    const problems: string[] = [];
    if (answer.status !== 200) problems.push(`status ${answer.status}`);
    if (answer.headers['content-type'] !== 'application/vnd.api+json')
      problems.push(`Content-Type ${answer.headers['content-type']}`);
    if (!hasVaryAccept(answer.headers.vary)) problems.push(`Vary ${answer.headers.vary}`);
    if (answer.headers['x-content-type-options'] !== 'nosniff') problems.push('no X-Content-Type-Options: nosniff');
    if (!answer.body.equals(expected)) problems.push('not the stored bytes');
    if (problems.length > 0) failures.push(`${url}: ${problems.join(', ')}`);
  });
  for (const [collection, counts] of Object.entries(manifest.collections)) {
    if (manifest.options.collectionIndex !== 'complete') break;
    const url = new URL(layout.collectionIndex(collection).servedPath.slice(1), base).href;
    const document = JSON.parse((await fetchFollowing(url)).body.toString('utf8')) as {
      data: unknown[];
      meta: { pagination: { count: number } };
    };
    if (document.data.length !== counts.records || document.meta.pagination.count !== counts.records) {
      failures.push(`${url}: ${document.data.length} records, the collection has ${counts.records}`);
    }
  }
  return { checked: urls.length, failures };
}

/** Stops a host's process and waits for it to exit. */
export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export interface CrawledTree {
  api: SampleApi;
  /** A temporary directory for the suite; the tree is `out` inside it. */
  base: string;
  out: string;
  close(): Promise<void>;
}

/**
 * A sample API and a snapshot of it, shared by a host suite (beforeAll / afterAll): two pages a collection, about
 * 500 documents, and no catalogue (the hosts are checked for the documents; the catalogue's pages on static hosts are
 * checked in test/browser/catalogue-browser.test.ts).
 */
export async function crawledTree(): Promise<CrawledTree> {
  const api = await startSampleApi({ records: 3, pageSize: 2, seed: 4 });
  const { dir: base, remove } = await suiteDir('cv-snapshot-hosts-');
  const out = path.join(base, 'out');
  await crawlForTest(api.rootUrl, out, { catalogue: 'none' });
  return {
    api,
    base,
    out,
    close: async () => {
      await api.close();
      await remove();
    },
  };
}
