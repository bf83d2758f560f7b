/**
 * A source that breaks the spec in ways the report lists: a record `1` whose own document gives the id `one` (a
 * record.id finding on the record's URL), and, after it in the one list, `oddIds` entries with an id that is not
 * numeric and no links.self (the first with HOSTILE_ID, markup for a page that fails to escape it).
 */
import { sendJson, startServer, type TestServer } from './http-server.js';

export const HOSTILE_ID = `x<img src=x onerror="window.pwned=1">`;

/** Serves the source under `/api/`. */
export function startFindingsSource(oddIds = 0): Promise<TestServer> {
  return startServer((req, res) => {
    const base = `http://${req.headers.host}/api/`;
    const one = (id: string) => ({
      type: 'Unit',
      id,
      attributes: { term: 'term one' },
      links: { self: `${base}units/1/` },
    });
    if (req.url === '/api/') return sendJson(res, 200, { data: { units: `${base}units/` } });
    if (req.url === '/api/units/') {
      const odd = Array.from({ length: oddIds }, (_, i) => ({
        type: 'Unit',
        id: i === 0 ? HOSTILE_ID : `x${i}`,
        attributes: { term: `odd ${i}` },
      }));
      return sendJson(res, 200, { links: { next: null }, data: [one('1'), ...odd] });
    }
    if (req.url === '/api/units/1/') return sendJson(res, 200, { data: one('one') });
    sendJson(res, 404, { errors: [{ status: '404' }] });
  });
}
