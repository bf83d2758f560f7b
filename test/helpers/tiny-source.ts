/**
 * A source of three documents (root index, one list page, one record) for tests of where a crawl writes and how it
 * publishes: a crawl of it takes milliseconds. `term` names the state the source serves, so two snapshots can be
 * told apart; `hold()` makes the record wait until `release()`, so a crawl can be caught in the middle, with its
 * lock held, without any timing.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sendJson, startServer, type TestServer } from './http-server.js';

export interface TinySource extends TestServer {
  root: string;
  /** The record's term: what a snapshot of this source holds at `api/units/1/index.html`. */
  term: string;
  /** From now on, requests for the record wait for `release()`; resolves when one arrives. */
  hold(): Promise<void>;
  release(): void;
}

export async function startTinySource(term = 'first'): Promise<TinySource> {
  let held: { arrived: () => void; waiting: Array<() => void> } | null = null;
  const server = await startServer((req, res) => {
    const base = `http://${req.headers.host}/api/`;
    const self = `${base}units/1/`;
    const record = { type: 'Unit', id: '1', attributes: { term: source.term }, relationships: {}, links: { self } };
    if (req.url === '/api/') return sendJson(res, 200, { data: { units: `${base}units/` } });
    if (req.url === '/api/units/') {
      return sendJson(res, 200, {
        links: { first: `${base}units/`, last: `${base}units/`, next: null, prev: null },
        data: [record],
        meta: { pagination: { page: 1, pages: 1, count: 1 } },
      });
    }
    if (req.url === '/api/units/1/') {
      if (held === null) return sendJson(res, 200, { data: record });
      held.waiting.push(() => sendJson(res, 200, { data: record }));
      held.arrived();
      return;
    }
    sendJson(res, 404, { errors: [{ status: '404' }] });
  });
  const source: TinySource = {
    ...server,
    root: `${server.url}/api/`,
    term,
    hold: () =>
      new Promise<void>((arrived) => {
        held = { arrived, waiting: [] };
      }),
    release: () => {
      const waiting = held?.waiting ?? [];
      held = null;
      for (const answer of waiting) answer();
    },
    close: async () => {
      source.release();
      await server.close();
    },
  };
  return source;
}

/** The term of the record in the snapshot at `dir`. */
export async function termIn(dir: string): Promise<string> {
  const document = JSON.parse(await readFile(path.join(dir, 'api', 'units', '1', 'index.html'), 'utf8')) as {
    data: { attributes: { term: string } };
  };
  return document.data.attributes.term;
}
