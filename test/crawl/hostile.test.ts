/**
 * Hostile or broken servers: nothing is written outside --out, nothing is fetched outside the root's
 * origin and path (redirects included), secrets never leak, and every oversized, endless or malformed answer ends
 * in a finding or a clear error, never a hang.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CrawlStoppedError, OutputDirError, TooManyDocumentsError } from '../../src/util/errors.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { runMain } from '../helpers/cli.js';
import { closedAfterEach, sendJson, startServer } from '../helpers/http-server.js';
import { listFiles } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';
import { onePage, startTinySource, type TinyAnswer } from '../helpers/tiny-source.js';

const tinySource = closedAfterEach(startTinySource);

function record(url: string, id: string) {
  return { data: { type: 'Unit', id, attributes: { term: id }, relationships: {}, links: { self: url } } };
}

describe('a hostile server', () => {
  it('cannot make the crawl write outside --out or fetch outside the root, and every case is reported', async () => {
    const victim = await startServer((_req, res) => sendJson(res, 200, { data: { stolen: 'yes' } }));
    // The one list links its records where no record should be, each a self link the source serves.
    const selves = (base: string) => [
      `${base}units/../../../escape/`,
      `${base}units/%2e%2e/%2e%2e/%2e%2e/escape2/`,
      `${base}units/a%2F..%2F..%2Fb/`,
      `${base}units/a%5C..%5C..%5Cb/`,
      `${base}units/%00/`,
      `${base}units/%01x/`,
      `${base}units/${'a'.repeat(250)}/`,
      `${base}units/CON/`,
      `${base}units/aux.json/`,
      '/etc/passwd',
      '//evil.invalid/x',
      `${victim.url}/api/units/1/`,
      `${base}units/redirect-away/`,
      `${base}units/moved`,
      `${base}units/1/`,
    ];
    const hostile = await tinySource({
      answers: {
        'units/': (res, base) =>
          sendJson(
            res,
            200,
            onePage(
              base,
              'units',
              selves(base).map((self, i) => ({
                type: 'Unit',
                id: String(i + 1),
                attributes: {},
                relationships: {},
                links: { self },
              })),
            ),
          ),
        'units/redirect-away/': (res) => {
          res.writeHead(302, { location: `${victim.url}/api/steal` });
          res.end();
        },
        'units/moved': (res, base) => {
          res.writeHead(301, { location: `${base}units/moved/` });
          res.end();
        },
      },
      otherwise: (res, _base, req) =>
        (req.url ?? '').startsWith('/api/units/')
          ? sendJson(res, 200, record(`http://${req.headers.host}${req.url}`, '1'))
          : sendJson(res, 404, { errors: [{ status: '404' }] }),
    });
    try {
      const top = await tempDir();
      const out = path.join(top, 'out');
      const result = await crawlForTest(hostile.root, out);

      // --out is a link to the snapshot in out.cv-snapshot/ (the generations of --out), which holds every file.
      for (const file of await listFiles(top))
        expect(file === 'out' || file.startsWith('out.cv-snapshot/'), file).toBe(true);
      expect(victim.requests).toEqual([]);
      for (const requested of hostile.requests) expect(requested.startsWith('/api/'), requested).toBe(true);
      expect(hostile.requests).toContain('/api/units/moved/');

      const findings = result.report.findings;
      const has = (rule: string, fragment: string) =>
        findings.some((f) => f.rule === rule && (f.url.includes(fragment) || f.message.includes(fragment)));
      expect(has('scope.outside', `${hostile.url}/escape/`)).toBe(true);
      expect(has('scope.outside', `${hostile.url}/escape2/`)).toBe(true);
      expect(has('scope.outside', `${hostile.url}/etc/passwd`)).toBe(true);
      expect(has('scope.outside', 'http://evil.invalid/x')).toBe(true);
      expect(has('scope.outside', `${victim.url}/api/units/1/`)).toBe(true);
      expect(has('scope.redirect', `${victim.url}/api/steal`)).toBe(true);
      for (const refused of ['a%2F..%2F..%2Fb', 'a%5C..%5C..%5Cb', '%00', '%01x', 'a'.repeat(250), 'CON', 'aux.json']) {
        expect(has('layout.refused', `/api/units/${refused}/`), refused).toBe(true);
      }
      // The well-behaved record is stored; the crawl ends normally, with the errors in the report.
      expect(existsSync(path.join(out, 'api/units/1/index.html'))).toBe(true);
      expect(result.report.errors).toBeGreaterThan(0);
      // Links that leave the snapshot are written as absolute source URLs, never as paths into the mirror.
      const page = await readFile(path.join(out, 'api/units/page/1/index.html'), 'utf8');
      expect(page).toContain(`"${hostile.url}/etc/passwd"`);
      expect(page).toContain('"http://evil.invalid/x"');
      expect(page).not.toContain('"/etc/passwd"');
      // The mirror is faithful to a faulty source: verify accepts what the report records, and only that.
      const verified = await verifySnapshot(out);
      expect(verified.problems.join('\n')).toEqual('');
      expect(verified.recordedErrors).toBeGreaterThan(0);
    } finally {
      await victim.close();
    }
  });

  it('never writes through a symbolic link planted in a staging directory', async () => {
    const server = await tinySource();
    const top = await tempDir();
    const out = path.join(top, 'out');
    const root = server.root;
    await mkdir(path.join(`${out}.staging`, 'tree', 'api'), { recursive: true });
    await writeFile(
      path.join(`${out}.staging`, 'run.json'),
      JSON.stringify({ root, links: 'relative', baseUrl: null, collectionIndex: 'complete' }),
    );
    await mkdir(path.join(top, 'elsewhere'));
    await symlink(path.join(top, 'elsewhere'), path.join(`${out}.staging`, 'tree', 'api', 'units'));
    await expect(crawlForTest(root, out, { resume: true })).rejects.toBeInstanceOf(OutputDirError);
    expect(await listFiles(path.join(top, 'elsewhere'))).toEqual([]);
  });
});

describe('oversized, endless and secret-bearing sources', () => {
  it('refuses a body over --max-bytes, compressed or not, naming the URL and the limit', async () => {
    const lists: Record<string, TinyAnswer> = {
      big: (res) => sendJson(res, 200, { data: 'x'.repeat(2_000_000) }),
      bomb: (res) => {
        const bomb = zlib.gzipSync(Buffer.alloc(5_000_000, 0x20));
        res.writeHead(200, {
          'content-type': 'application/vnd.api+json',
          'content-encoding': 'gzip',
          'content-length': bomb.length,
        });
        res.end(bomb);
      },
    };
    for (const [which, list] of Object.entries(lists)) {
      const server = await tinySource({ answers: { 'units/': list } });
      const error = await crawlForTest(server.root, path.join(await tempDir(), 'out'), {
        maxBytes: 1_000_000,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CrawlStoppedError);
      expect((error as Error).message).toContain(`${server.root}units/ could not be fetched`);
      expect((error as Error).message).toMatch(
        which === 'big'
          ? /the response is 2\d{6} bytes, over the --max-bytes limit of 1000000/
          : /the decompressed response is over the --max-bytes limit of 1000000/,
      );
    }
  });

  it('stops at the pages a list declares, and --max-documents stops endless link generation', async () => {
    // Every page of units links to one more, and each record of the chain to a new one.
    const server = await tinySource({
      collections: {},
      answers: {
        '': (res, base) => sendJson(res, 200, { data: { units: `${base}units/`, chain: `${base}chain/1/` } }),
      },
      otherwise: (res, base, req) => {
        const url = new URL(req.url ?? '/', base);
        if (url.pathname === '/api/units/') {
          const page = Number(url.searchParams.get('page[number]') ?? '1');
          return sendJson(res, 200, {
            links: {
              first: `${base}units/`,
              last: `${base}units/?page[number]=2`,
              next: `${base}units/?page[number]=${page + 1}`,
              prev: null,
            },
            data: [],
            meta: { pagination: { page, pages: 2, count: 0 } },
          });
        }
        const n = Number(url.pathname.split('/')[3]);
        sendJson(res, 200, {
          data: {
            type: 'Unit',
            id: String(n),
            attributes: {},
            relationships: {},
            links: { self: `${base}chain/${n}/`, next: `${base}chain/${n + 1}/` },
          },
        });
      },
    });
    const out = path.join(await tempDir(), 'out');
    const error = await crawlForTest(server.root, out, { maxDocuments: 60 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrawlStoppedError);
    expect((error as CrawlStoppedError).cause).toBeInstanceOf(TooManyDocumentsError);
    expect((error as Error).message).toContain('more than 60 URLs (--max-documents)');
    expect(server.requests.some((u) => u.includes('page[number]=3') || u.includes('page%5Bnumber%5D=3'))).toBe(false);
    const report = await readFile(path.join(`${out}.staging`, 'journal.ndjson'), 'utf8');
    expect(report).toContain('pagination.runaway');
  });

  it('never writes a --header value to the snapshot, the output or an error', async () => {
    const secret = 's3cr3t-token-do-not-leak';
    const server = await tinySource({
      collections: { licenses: [] },
      onRequest: (req, res) => {
        if (req.headers.authorization !== `Bearer ${secret}`)
          sendJson(res, 401, { errors: [{ status: '401', detail: 'no' }] });
      },
    });
    const out = path.join(await tempDir(), 'out');
    const ok = await runMain([
      'crawl',
      server.root,
      '--out',
      out,
      '--header',
      `Authorization: Bearer ${secret}`,
      '--json',
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout + ok.stderr).not.toContain(secret);
    for (const file of await listFiles(out))
      expect(await readFile(path.join(out, file), 'utf8'), file).not.toContain(secret);
    const manifest = JSON.parse(await readFile(path.join(out, '_cv-snapshot/manifest.json'), 'utf8')) as {
      options: { headers: string[] };
    };
    expect(manifest.options.headers).toEqual(['Authorization: ***']);

    const wrong = await runMain([
      'crawl',
      server.root,
      '--out',
      path.join(await tempDir(), 'o'),
      '--header',
      `Authorization: Bearer wrong-${secret}`,
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('HTTP 401');
    expect(wrong.stderr).not.toContain(secret);
  });
});
