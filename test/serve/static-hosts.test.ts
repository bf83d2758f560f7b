/**
 * The tree `crawl` writes serves correctly, with no hand edits, on static hosts (docs/snapshot-format.md#host-files):
 * plain `npx serve <dir>` (its serve.json) and serve-handler under a sub-path for `--links absolute --base-url
 * .../sub/path/`. Hosts that need programs of their own (nginx, Cloudflare's `wrangler pages dev`) are checked by `npm
 * run check:hosts` (external-hosts.check.ts), so that this suite never skips a test.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SampleApi } from '../../src/sample-api/index.js';
import { createSnapshot } from '../../src/pipeline/create-snapshot.js';
import { treeHashes } from '../helpers/snapshot.js';
import {
  checkStaticHost,
  crawledTree,
  fetchFollowing,
  freePort,
  stopProcess,
  waitForHttp,
  type CrawledTree,
} from './host-check.js';
import { testClock } from '../helpers/crawl.js';

const require = createRequire(import.meta.url);

let tree: CrawledTree;
let api: SampleApi;
let base: string;
let out: string;

beforeAll(async () => {
  tree = await crawledTree();
  ({ api, base, out } = tree);
}, 60_000);
afterAll(() => tree.close());

describe('npx serve <dir> (serve.json)', () => {
  it('answers every document URL of the tree with the JSON:API headers and the stored bytes', async () => {
    const before = await treeHashes(out);
    const port = await freePort();
    const bin = path.join(path.dirname(require.resolve('serve/package.json')), 'build', 'main.js');
    const child = spawn(
      process.execPath,
      [bin, out, '--listen', `tcp://127.0.0.1:${port}`, '--no-clipboard', '--no-request-logging'],
      {
        env: { ...process.env, NO_UPDATE_CHECK: '1' },
        stdio: 'ignore',
      },
    );
    try {
      const origin = `http://127.0.0.1:${port}/`;
      await waitForHttp(origin, 15_000);
      const result = await checkStaticHost(out, origin);
      expect(result.failures).toEqual([]);
      expect(result.checked).toBeGreaterThan(300);
      const missing = await fetchFollowing(`${origin}sms/cv/api/v1/units/999999/`);
      expect(missing.status).toBe(404);
      expect(missing.headers['content-type']).toBe('application/vnd.api+json');
    } finally {
      await stopProcess(child);
    }
    expect(await treeHashes(out)).toEqual(before);
  }, 60_000);
});

describe('--links absolute --base-url under a sub-path', () => {
  it('works when the tree is hosted under that sub-path (serve-handler behind a prefix)', async () => {
    const handler = require('serve-handler') as (
      req: http.IncomingMessage,
      res: http.ServerResponse,
      config: object,
    ) => Promise<void>;
    const subPath = '/mirror/cv/v2024/';
    const dir = path.join(base, 'absolute');
    const serveJson = () => require(path.join(dir, 'serve.json')) as object;
    const server = http.createServer((req, res) => {
      const url = req.url ?? '/';
      if (!url.startsWith(subPath)) {
        res.writeHead(404).end();
        return;
      }
      req.url = url.slice(subPath.length - 1);
      void handler(req, res, { ...serveJson(), public: dir });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const baseUrl = `http://127.0.0.1:${port}${subPath}`;
      const absolute = { links: 'absolute', baseUrl, catalogue: 'none' } as const;
      await createSnapshot({ rootUrl: api.rootUrl, out: dir, clock: testClock(), ...absolute });
      const result = await checkStaticHost(dir, baseUrl);
      expect(result.failures).toEqual([]);

      // Every link of every document a client reaches from the root answers under the sub-path.
      const seen = new Set<string>([`${baseUrl}sms/cv/api/v1/`]);
      const queue = [...seen];
      while (queue.length > 0) {
        const url = queue.shift()!;
        const answer = await fetchFollowing(url, 0);
        expect(answer.status, url).toBe(200);
        const text = answer.body.toString('utf8');
        for (const match of text.matchAll(/"(https?:\/\/[^"]+)"/g)) {
          const link = match[1]!;
          if (!link.startsWith(baseUrl) || seen.has(link)) continue;
          seen.add(link);
          queue.push(link);
        }
      }
      expect(seen.size).toBeGreaterThan(300);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 60_000);
});
