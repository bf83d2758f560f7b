/**
 * Static hosts that need programs of their own, run by `npm run check:hosts` (scripts/check-hosts.mjs), not by
 * `npm test`: nginx with the configuration of docs/hosting.md (where nginx is installed; the script says when it is
 * not), and Cloudflare's local engine `wrangler pages dev`, which the script installs with a Node 22 to run it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

let tree: CrawledTree;
let out: string;

beforeAll(async () => {
  tree = await crawledTree();
  ({ out } = tree);
}, 60_000);
afterAll(() => tree.close());

/** The nginx recipe of docs/hosting.md, word for word inside the server block. */
function nginxConfig(root: string, port: number, prefix: string): string {
  // The test's temporary directories are private to this user: the workers run as it too.
  return `
user ${os.userInfo().username};
worker_processes 1;
error_log ${prefix}/error.log;
pid ${prefix}/nginx.pid;
events {}
http {
  include /etc/nginx/mime.types;
  access_log off;
  client_body_temp_path ${prefix};
  server {
    listen 127.0.0.1:${port};
    root ${root};
    add_header X-Content-Type-Options nosniff always;

    location /sms/cv/api/v1 {
      types { }
      default_type application/vnd.api+json;
      add_header Vary Accept always;
      add_header X-Content-Type-Options nosniff always;
      try_files $uri $uri/index.html =404;
      error_page 404 /404.html;
    }
    location = /404.html {
      types { }
      default_type application/vnd.api+json;
      add_header Vary Accept always;
      add_header X-Content-Type-Options nosniff always;
    }
    location ~ ^/(_headers|_redirects|serve\\.json)$ { return 404; }
  }
}
`;
}

const hasNginx = spawnSync('nginx', ['-v']).status === 0;

describe.runIf(hasNginx)('nginx with the recipe of docs/hosting.md', () => {
  it('answers every document URL of the tree with the JSON:API headers and the stored bytes', async () => {
    const prefix = await mkdtemp(path.join(os.tmpdir(), 'cv-snapshot-nginx-'));
    const port = await freePort();
    await writeFile(path.join(prefix, 'nginx.conf'), nginxConfig(out, port, prefix));
    const child = spawn('nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-g', 'daemon off;'], {
      stdio: 'ignore',
    });
    try {
      const origin = `http://127.0.0.1:${port}/`;
      await waitForHttp(origin, 15_000);
      const result = await checkStaticHost(out, origin);
      expect(result.failures).toEqual([]);
      const missing = await fetchFollowing(`${origin}sms/cv/api/v1/units/999999/`);
      expect(missing.status).toBe(404);
      expect(missing.headers['content-type']).toBe('application/vnd.api+json');
    } finally {
      await stopProcess(child);
      await rm(prefix, { recursive: true, force: true });
    }
  }, 60_000);
});

/** Set by `npm run check:hosts` (scripts/check-hosts.mjs), which installs wrangler and a Node 22 to run it. */
const wrangler = process.env.CV_SNAPSHOT_WRANGLER;
const node22 = process.env.CV_SNAPSHOT_NODE22;

describe.runIf(wrangler !== undefined && node22 !== undefined)(
  'wrangler pages dev (Cloudflare Pages, _headers and _redirects)',
  () => {
    it('answers every document URL of the tree with the JSON:API headers and the stored bytes', async () => {
      const before = await treeHashes(out);
      const port = await freePort();
      // wrangler keeps its state in the working directory: a temporary one, so the tree stays untouched.
      const cwd = await mkdtemp(path.join(os.tmpdir(), 'cv-snapshot-wrangler-'));
      let log = '';
      const child = spawn(
        node22!,
        [
          wrangler!,
          'pages',
          'dev',
          out,
          '--ip',
          '127.0.0.1',
          '--port',
          String(port),
          '--compatibility-date',
          '2024-01-01',
        ],
        {
          cwd,
          env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stdout.on('data', (d: Buffer) => (log += d.toString()));
      child.stderr.on('data', (d: Buffer) => (log += d.toString()));
      try {
        const origin = `http://127.0.0.1:${port}/`;
        await waitForHttp(origin, 60_000);
        expect(log).toMatch(/Parsed 4 valid redirect rules/);
        const result = await checkStaticHost(out, origin);
        expect(result.failures, log).toEqual([]);
        const missing = await fetchFollowing(`${origin}sms/cv/api/v1/units/999999/`);
        expect(missing.status).toBe(404);
        expect(missing.headers['content-type']).toBe('application/vnd.api+json');
      } finally {
        await stopProcess(child);
        await rm(cwd, { recursive: true, force: true });
      }
      expect(await treeHashes(out)).toEqual(before);
    }, 120_000);
  },
);
