/**
 * A path longer than a file system allows is a `layout.refused` finding like any unstorable path,
 * decided before anything is written: a 4.5 KB path of short segments, deep nesting, one segment over 255 bytes.
 * The snapshot then verifies and packs; a path at the limit is stored.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packSnapshot } from '../../src/archive/index.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { sendJson, serversClosedAfterEach } from '../helpers/http-server.js';
import { listFiles } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const serve = serversClosedAfterEach();

/** `api/units/<id>/index.html` is 1,024 bytes long: the longest file path a snapshot stores. */
const AT_LIMIT = `${Array.from({ length: 10 }, () => 'y'.repeat(99)).join('/')}/abc`;

const IDS = {
  // 1,500 segments of two letters: 4.5 KB.
  short: Array.from({ length: 1500 }, () => 'ab').join('/'),
  deep: Array.from({ length: 600 }, () => 'a').join('/'),
  segment: 'z'.repeat(300),
  justOver: `${AT_LIMIT}y`,
};

function resource(base: string, id: string) {
  return {
    type: 'Unit',
    id: '1',
    attributes: { term: id.slice(0, 20) },
    relationships: {},
    links: { self: `${base}units/${id}/` },
  };
}

describe('a link to a path longer than a file system allows', () => {
  it('is refused before it is written, and the snapshot verifies and packs', async () => {
    const ids = ['1', AT_LIMIT, ...Object.values(IDS)];
    const server = await serve((req, res) => {
      const base = `http://${req.headers.host}/api/`;
      if (req.url === '/api/') return sendJson(res, 200, { data: { units: `${base}units/` } });
      if (req.url === '/api/units/') {
        return sendJson(res, 200, {
          links: { first: `${base}units/`, last: `${base}units/`, next: null, prev: null },
          data: ids.map((id) => resource(base, id)),
          meta: { pagination: { page: 1, pages: 1, count: ids.length } },
        });
      }
      const id = /^\/api\/units\/(.+)\/$/.exec(req.url ?? '')?.[1];
      if (id !== undefined && ids.includes(id)) return sendJson(res, 200, { data: resource(base, id) });
      sendJson(res, 404, { errors: [{ status: '404' }] });
    });
    const base = await tempDir();
    const out = path.join(base, 'out');
    const result = await crawlForTest(`${server.url}/api/`, out, { catalogue: 'none' });

    const refused = result.report.findings.filter((f) => f.rule === 'layout.refused').map((f) => f.url);
    expect(refused.sort()).toEqual(
      Object.values(IDS)
        .map((id) => `${server.url}/api/units/${id}/`)
        .sort(),
    );
    const files = await listFiles(out);
    expect(files).toContain(`api/units/${AT_LIMIT}/index.html`);
    expect(files).toContain('api/units/1/index.html');
    expect(Math.max(...files.map((file) => Buffer.byteLength(file)))).toBe(1024);

    const verified = await verifySnapshot(out);
    expect(verified.problems).toEqual([]);
    const packed = await packSnapshot(out, path.join(base, 'out.tar.gz'));
    expect(packed.bytes).toBeGreaterThan(0);
  });
});
