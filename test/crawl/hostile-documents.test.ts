/**
 * No input crashes the crawl: documents nested deep enough to overflow the stack, redirects to
 * places that cannot be fetched, a document with thousands of links outside the root, and a root index that
 * leads nowhere each end in a finding or a sentence naming the URL, never in "unexpected failure".
 */
import { readFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CrawlStoppedError, RootScopeError, UnusableDocumentError } from '../../src/util/errors.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { runMain } from '../helpers/cli.js';
import { crawlForTest } from '../helpers/crawl.js';
import { closedAfterEach, sendJson, serversClosedAfterEach } from '../helpers/http-server.js';
import { listFiles } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { onePage, records, startTinySource } from '../helpers/tiny-source.js';

const serve = serversClosedAfterEach();
const tinySource = closedAfterEach(startTinySource);

const record = (self: string, id: string, attributes: Record<string, unknown> = { term: id }) => ({
  data: { type: 'Unit', id, attributes, relationships: {}, links: { self } },
});

function list(base: string, ids: string[], extraLinks: Record<string, string> = {}) {
  return {
    links: { first: `${base}units/`, last: `${base}units/`, next: null, prev: null, ...extraLinks },
    data: ids.map((id) => record(`${base}units/${id}/`, id).data),
    meta: { pagination: { page: 1, pages: 1, count: ids.length } },
  };
}

/** A record whose attribute `deep` nests arrays so that the whole document is `depth` levels deep. */
function nestedRecord(self: string, depth: number): string {
  // The document, data and attributes objects are three levels.
  const arrays = depth - 3;
  const body = JSON.stringify(record(self, '2', { deep: '@' }));
  return body.replace('"@"', `${'['.repeat(arrays)}${']'.repeat(arrays)}`);
}

describe('a document nested too deep', () => {
  const source = (depth: number) =>
    tinySource({
      collections: { units: records(2) },
      answers: { 'units/2/': (res, base) => sendJson(res, 200, nestedRecord(`${base}units/2/`, depth)) },
    });

  it('ends the crawl with its URL; --resume --allow-partial then publishes without it', async () => {
    const server = await source(50_000);
    const out = path.join(await tempDir(), 'out');
    const error = await crawlForTest(server.root, out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrawlStoppedError);
    expect((error as CrawlStoppedError).cause).toBeInstanceOf(UnusableDocumentError);
    expect((error as Error).message).toContain(
      `${server.url}/api/units/2/ cannot be stored: it nests objects and arrays more than 256 levels deep.`,
    );
    // Nothing crashes on the same document when the crawl goes on.
    const resumed = await crawlForTest(server.root, out, { resume: true, allowPartial: true });
    expect(resumed.missing).toEqual([`${server.url}/api/units/2/`]);
    expect(resumed.report.findings.filter((f) => f.rule === 'fetch.failed').map((f) => f.url)).toEqual([
      `${server.url}/api/units/2/`,
    ]);
    expect(await listFiles(out)).not.toContain('api/units/2/index.html');
    expect(server.requests.filter((u) => u === '/api/units/2/')).toHaveLength(2);
  });

  it('is stored and verified when it nests exactly as deep as allowed', async () => {
    const server = await source(256);
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(server.root, out);
    expect(result.missing).toEqual([]);
    const stored = await readFile(path.join(out, 'api/units/2/index.html'), 'utf8');
    expect(stored).toContain(`${'['.repeat(253)}${']'.repeat(253)}`);
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });

  it('is a clear error from the command line too', async () => {
    const server = await source(100_000);
    const run = await runMain([
      'crawl',
      `${server.url}/api/`,
      '--out',
      path.join(await tempDir(), 'out'),
      '--retries',
      '0',
      '--quiet',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('unexpected failure');
    expect(run.stderr).toContain(
      `${server.url}/api/units/2/ cannot be stored: it nests objects and arrays more than 256 levels deep`,
    );
  });
});

describe('a redirect that cannot be followed', () => {
  it('to another scheme, a malformed URL or one with credentials is a finding; no password is echoed', async () => {
    const locations: Record<string, string> = {
      '/api/units/1/': 'file:///etc/passwd',
      '/api/units/2/': 'ftp://127.0.0.1/units/2/',
      '/api/units/3/': 'http://[::1',
      '/api/units/4/': 'http://admin:hunter2@127.0.0.1/api/units/4/',
      '/api/units/5/': 'javascript:alert(1)',
    };
    const redirect = (location: string) => (res: http.ServerResponse) => {
      res.writeHead(302, { location });
      res.end();
    };
    const server = await tinySource({
      collections: { units: records(6) },
      answers: Object.fromEntries(
        Object.entries(locations).map(([url, to]) => [url.slice('/api/'.length), redirect(to)]),
      ),
    });
    const out = path.join(await tempDir(), 'out');
    const run = await runMain(['crawl', `${server.url}/api/`, '--out', out, '--retries', '0']);
    expect(run.stderr).not.toContain('unexpected failure');
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain('hunter2');
    const report = await readFile(path.join(out, '_cv-snapshot/report.json'), 'utf8');
    expect(report).not.toContain('hunter2');
    const findings = (JSON.parse(report) as { findings: Array<{ url: string; rule: string; message: string }> })
      .findings;
    for (const url of Object.keys(locations)) {
      const finding = findings.find((f) => f.url === `${server.url}${url}`);
      expect(finding?.rule, url).toBe('scope.redirect');
      expect(finding?.message, url).toContain('redirects to a location that cannot be followed');
    }
    expect(findings.find((f) => f.url === `${server.url}/api/units/4/`)?.message).toContain(
      'http://***@127.0.0.1/api/units/4/',
    );
    expect(server.requests.filter((u) => !u.startsWith('/api/'))).toEqual([]);
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });
});

describe('a redirect to a URL with non-ASCII characters', () => {
  it('sent as UTF-8 bytes in Location is followed to the URL the server meant', async () => {
    const server = await tinySource({
      collections: {},
      answers: {
        '': (res, base) => sendJson(res, 200, { data: { units: `${base}units` } }),
        units: (res) => {
          // Node writes a header string's characters as bytes: these are the UTF-8 bytes of "café".
          res.writeHead(301, { location: Buffer.from('/api/units/café/', 'utf8').toString('latin1') });
          res.end();
        },
      },
      otherwise: (res, base) =>
        sendJson(res, 200, {
          ...onePage(base, 'units', []),
          links: { first: null, last: null, next: null, prev: null },
        }),
    });
    await crawlForTest(server.root, path.join(await tempDir(), 'out'));
    expect(server.requests).toEqual(['/api/', '/api/units', '/api/units/caf%C3%A9/']);
  });
});

describe('a very faulty source', () => {
  it('with thousands of links outside the root and of dead records: counted, listed in part, verified', async () => {
    const outside = 3000;
    const dead = 1050;
    const ids = Array.from({ length: dead }, (_, i) => String(i + 1));
    const server = await tinySource({
      answers: {
        'units/': (res, base) => {
          const links = Object.fromEntries(
            Array.from({ length: outside }, (_, i) => [`x${i}`, `http://elsewhere.invalid/${i}`]),
          );
          const page = list(base, ids, links);
          // Every record breaks record.self (its link names another id) and links to a record that is gone.
          for (const resource of page.data) resource.links.self = `${base}units/9${resource.id}/`;
          sendJson(res, 200, page);
        },
      },
    });
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(server.root, out, { concurrency: 16 });
    const report = JSON.parse(await readFile(path.join(out, '_cv-snapshot/report.json'), 'utf8')) as {
      rules: Record<string, { errors: number; warnings: number; omitted: number }>;
      findingsListedPerRule: number;
      findingsOmitted: number;
      findings: Array<{ rule: string }>;
    };
    expect(report.findingsListedPerRule).toBe(1000);
    expect(report.rules['scope.outside']).toEqual({ errors: 0, warnings: outside, omitted: outside - 1000 });
    expect(report.rules['link.dead']).toEqual({ errors: dead, warnings: 0, omitted: dead - 1000 });
    expect(report.rules['record.self']).toEqual({ errors: dead, warnings: 0, omitted: dead - 1000 });
    expect(report.findings.filter((f) => f.rule === 'scope.outside')).toHaveLength(1000);
    expect(report.findingsOmitted).toBe(outside - 1000 + 2 * (dead - 1000));
    // The closing summary (what the command line prints after the table) stays short.
    expect(result.summary.split('\n').length).toBeLessThan(20);
    expect(result.summary).toContain('scope.outside (3000 warnings, 2000 not listed)');
    // A faithful mirror of this source: verify explains every finding from the report, listed or not.
    const verified = await verifySnapshot(out);
    expect(verified.problems).toEqual([]);
    expect(verified.recordedErrors).toBeGreaterThanOrEqual(dead);
  }, 60_000);
});

describe('a root index that leads nowhere', () => {
  it('whose collections are all on another origin fails, naming where they are and what to try', async () => {
    const other = await serve((_req, res) => sendJson(res, 200, { data: [] }));
    const server = await serve((_req, res) =>
      sendJson(res, 200, {
        data: { units: `${other.url}/sms/cv/api/v1/units/`, sites: `${other.url}/sms/cv/api/v1/sites/` },
      }),
    );
    const out = path.join(await tempDir(), 'out');
    const error = await crawlForTest(`${server.url}/cv/api/v1/`, out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RootScopeError);
    expect((error as Error).message).toBe(
      `${server.url}/cv/api/v1/: the root index lists 2 collection URLs and none is below the root URL ` +
        `(they are under ${other.url}/sms/cv/api/v1/), so there is nothing to crawl. ` +
        "Only URLs on the root's origin and below its path " +
        `are fetched: give the root URL the collections belong to, such as ${other.url}/sms/cv/api/v1/.`,
    );
    expect(other.requests).toEqual([]);
    expect(await listFiles(path.dirname(out))).toEqual([]);
  });

  it('whose collections are partly outside is crawled, with the others as findings', async () => {
    const server = await tinySource({
      collections: { units: [] },
      answers: {
        '': (res, base) =>
          sendJson(res, 200, { data: { units: `${base}units/`, sites: 'http://elsewhere.invalid/api/sites/' } }),
      },
    });
    const result = await crawlForTest(server.root, path.join(await tempDir(), 'out'));
    expect(result.collections).toEqual({ units: { records: 0, pages: 1, documents: 1 } });
    expect(result.report.findings.map((f) => [f.rule, f.message])).toContainEqual([
      'scope.outside',
      `The link http://elsewhere.invalid/api/sites/ is outside the root URL ${server.url}/api/; ` +
        'it was recorded, not fetched.',
    ]);
  });

  it('that redirects fails, naming the target to give instead', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(301, { location: 'https://cv.example.org/sms/cv/api/v1/' });
      res.end();
    });
    const out = path.join(await tempDir(), 'out');
    const run = await runMain(['crawl', `${server.url}/sms/cv/api/v1/`, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `cv-snapshot crawl: ${server.url}/sms/cv/api/v1/: the root URL answers HTTP 301, a redirect to ` +
        'https://cv.example.org/sms/cv/api/v1/. Give that URL as the root, if it is the API root.\n',
    );
    expect(await listFiles(path.dirname(out))).toEqual([]);
  });
});
