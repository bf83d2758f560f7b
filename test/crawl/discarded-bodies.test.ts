/**
 * A body the crawl does not read is never decoded. Web servers compress error pages too (nginx with
 * gzip on, Django's GZipMiddleware, the sample API): a listed record that answers 404 or 410 in any encoding, or
 * with a corrupt, cut or empty compressed body, is a `link.dead` finding like an uncompressed 404; a redirect, a 429
 * and a 5xx with such a body are followed or retried by their status.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawlForTest } from '../helpers/crawl.js';
import { closedAfterEach, sendJson } from '../helpers/http-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { recordDocument, startTinySource } from '../helpers/tiny-source.js';

const tinySource = closedAfterEach(startTinySource);

const ERROR_BODY = Buffer.from(JSON.stringify({ errors: [{ status: '404', detail: 'Not found.' }] }));
const GZIPPED = gzipSync(ERROR_BODY);

/** How each listed record answers: a status, its Content-Encoding, and the bytes sent. */
const ANSWERS: Record<string, { status: number; encoding: string; body: Buffer }> = {
  gzip: { status: 404, encoding: 'gzip', body: GZIPPED },
  'gone-gzip': { status: 410, encoding: 'gzip', body: GZIPPED },
  br: { status: 404, encoding: 'br', body: brotliCompressSync(ERROR_BODY) },
  deflate: { status: 404, encoding: 'deflate', body: deflateSync(ERROR_BODY) },
  unknown: { status: 404, encoding: 'zstd', body: ERROR_BODY },
  cut: { status: 404, encoding: 'gzip', body: GZIPPED.subarray(0, GZIPPED.length - 12) },
  corrupt: { status: 410, encoding: 'gzip', body: Buffer.from('this is no gzip stream') },
  empty: { status: 404, encoding: 'gzip', body: Buffer.alloc(0) },
};

function send(res: http.ServerResponse, status: number, encoding: string, body: Buffer, extra = {}): void {
  res.writeHead(status, {
    'content-type': 'application/vnd.api+json',
    'content-encoding': encoding,
    'content-length': body.length,
    ...extra,
  });
  res.end(body);
}

describe('a listed record answering 404 or 410 with an encoded body', () => {
  it('is a link.dead finding in every encoding, even one that does not decode', async () => {
    const ids = ['ok', ...Object.keys(ANSWERS)];
    const server = await tinySource({
      collections: { units: ids.map((id) => ({ id, term: id })) },
      answers: Object.fromEntries(
        Object.entries(ANSWERS).map(([id, answer]) => [
          `units/${id}/`,
          (res: http.ServerResponse) => send(res, answer.status, answer.encoding, answer.body),
        ]),
      ),
    });
    const result = await crawlForTest(server.root, path.join(await tempDir(), 'out'), {
      retries: 1,
      backoffBaseMs: 1,
    });
    const dead = result.report.findings.filter((f) => f.rule === 'link.dead').map((f) => f.url);
    expect(dead.sort()).toEqual(
      Object.keys(ANSWERS)
        .map((id) => `${server.url}/api/units/${id}/`)
        .sort(),
    );
    // A dead link is final: nothing was asked twice.
    for (const id of Object.keys(ANSWERS)) {
      expect(
        server.requests.filter((url) => url === `/api/units/${id}/`),
        id,
      ).toHaveLength(1);
    }
  });
});

describe('an answer whose status says what to do, with a body that does not decode', () => {
  it('a redirect is followed, and a 429, 500 and 503 retried by their status', async () => {
    const asked = new Map<string, number>();
    const corrupt = Buffer.from('not gzip at all');
    const first: Record<string, number> = { throttled: 429, failed: 500, down: 503 };
    const server = await tinySource({
      collections: { units: ['moved', 'throttled', 'failed', 'down'].map((id) => ({ id, term: id })) },
      // The first answer of each of `first` is its status with a body that does not decode.
      onRequest: (req, res) => {
        const url = req.url ?? '';
        const times = (asked.get(url) ?? 0) + 1;
        asked.set(url, times);
        const id = /^\/api\/units\/([^/]+)\/$/.exec(url)?.[1] ?? '';
        if (first[id] !== undefined && times === 1) send(res, first[id], 'gzip', corrupt, { 'retry-after': '0' });
      },
      answers: {
        'units/moved/': (res, base) => send(res, 301, 'gzip', corrupt, { location: `${base}units/m/` }),
        'units/m/': (res, base) => sendJson(res, 200, recordDocument(base, 'units', { id: 'm', term: 'm' })),
      },
    });
    const result = await crawlForTest(server.root, path.join(await tempDir(), 'out'), {
      retries: 1,
      backoffBaseMs: 1,
    });
    const units = result.report.findings.filter(
      (f) => f.url.startsWith(`${server.url}/api/units/`) && f.rule !== 'resource.id',
    );
    expect(units.map((f) => [f.url, f.rule])).toEqual([[`${server.url}/api/units/moved/`, 'link.redirect']]);
    expect(asked.get('/api/units/m/')).toBe(1);
    for (const id of ['throttled', 'failed', 'down']) expect(asked.get(`/api/units/${id}/`), id).toBe(2);
    expect(result.retries).toBe(3);
  });
});
