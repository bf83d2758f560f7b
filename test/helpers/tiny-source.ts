/**
 * The suite's small JSON:API source on 127.0.0.1: a root index, collections of a few records and each record's
 * document. A crawl of it takes milliseconds. By default it serves three documents: the root, one collection, `units`,
 * whose one page is its own URL, and one record whose term is the source's `term`, which a test may change between
 * crawls so that two snapshots can be told apart. With `pageSize`, lists are paginated that many records to a page
 * (links as spec 4.1 gives them, `?page[number]=n`); without it, a collection's one page is its own URL.
 *
 * - `answers` replaces what chosen paths answer (a body cut off, a redirect, a document nested too deep, a status, a
 *   body that never ends), so that a test of a hostile or odd source writes only what is odd about it;
 * - `otherwise` answers the paths the source does not serve (by default a 404);
 * - `failing` paths answer 500;
 * - `hold()` makes every record wait until `release()`, so a crawl can be caught in the middle, with its lock held,
 *   without any timing.
 */
import type http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sendJson, startServer, type TestHandler, type TestServer } from './http-server.js';

export interface TinyRecord {
  id: string;
  /** Its `attributes.term`, the first attribute (none when not given). */
  term?: string;
  /** JSON text of `attributes.value`, written as is. */
  value?: string;
  /** JSON text of the record's `id` in the lists and its document (default: `id` as a string), such as `7`. */
  idJson?: string;
  /** More attributes, after `term`. */
  attributes?: Record<string, unknown>;
  /**
   * Its `links.self` in the lists and its document: a URL, or a path below the root such as `units/1/` (default: its
   * path below its collection; null: no `links`).
   */
  self?: string | null;
  /** Its `relationships` (default: none), or what they are for the record at the URL `self`. */
  relationships?: Record<string, unknown> | ((self: string) => Record<string, unknown>);
  /** Its type (default: the collection's, below). */
  type?: string;
}

/** Answers one path below the root; `base` is the root's URL as the request reached it (`http://host/api/`). */
export type TinyAnswer = (res: http.ServerResponse, base: string, req: http.IncomingMessage) => unknown;

export interface TinySourceOptions {
  /** The term of record 1 of `units` when `collections` is not given (default "first"). */
  term?: string;
  /** Collections by name, each its records in order (`units` holds `Unit` records, any other `Thing` records). */
  collections?: Record<string, TinyRecord[]>;
  /** Records per list page (default: every record on one page). */
  pageSize?: number;
  /** Paths below the root (such as `units/?page[number]=2`) that answer 500. */
  failing?: string[];
  /** Paths below the root (`''` for the root, `units/`, `units/2/`) and what they answer instead. */
  answers?: Record<string, TinyAnswer>;
  /** What the paths the source does not serve answer (default: 404). */
  otherwise?: TinyAnswer;
  /** Called as each request arrives, before it is answered (to time arrivals, say); when it answers, that is all. */
  onRequest?: (req: http.IncomingMessage, res: http.ServerResponse) => void;
}

export interface TinySource extends TestServer {
  root: string;
  /** The term of record 1 of the default collection: what a snapshot of this source holds at `api/units/1/`. */
  term: string;
  /** From now on, requests for a record wait for `release()`; resolves when one arrives. */
  hold(): Promise<void>;
  release(): void;
}

/** `count` records with ids 1… and terms `<prefix>1`…, for a collection. */
export function records(count: number, prefix = 'term '): TinyRecord[] {
  return Array.from({ length: count }, (_, i) => ({ id: String(i + 1), term: `${prefix}${i + 1}` }));
}

const TYPES: Record<string, string> = { units: 'Unit', things: 'Thing', licenses: 'License' };

/** A record as the source lists and serves it, its JSON written by hand so that `value` and `idJson` stay as given. */
function recordText(base: string, collection: string, record: TinyRecord): string {
  const type = record.type ?? TYPES[collection] ?? 'Thing';
  const attributes = [
    record.term === undefined ? [] : [`"term":${JSON.stringify(record.term)}`],
    record.attributes === undefined ? [] : [JSON.stringify(record.attributes).slice(1, -1)],
    record.value === undefined ? [] : [`"value":${record.value}`],
  ].flat();
  const own = record.self ?? `${collection}/${record.id}/`;
  const self = record.self === null ? null : /^[a-z]+:/.test(own) ? own : `${base}${own}`;
  const relationships =
    typeof record.relationships === 'function'
      ? record.relationships(self ?? `${base}${collection}/${record.id}/`)
      : (record.relationships ?? {});
  const links = self === null ? '' : `,"links":{"self":${JSON.stringify(self)}}`;
  return (
    `{"type":${JSON.stringify(type)},"id":${record.idJson ?? JSON.stringify(record.id)},` +
    `"attributes":{${attributes.filter((a) => a !== '').join(',')}},"relationships":${JSON.stringify(relationships)}` +
    `${links}}`
  );
}

/**
 * A relationship `name` given with links only, as the service gives `successor` (spec 2.4): where it leads is in the
 * relationship document `<record>/relationships/<name>` and the related document `<record>/<name>/`, which a test
 * answers.
 */
export function linksOnly(name: string): (self: string) => Record<string, unknown> {
  return (self) => ({ [name]: { links: { self: `${self}relationships/${name}`, related: `${self}${name}/` } } });
}

/** An answer of 200 with the document `{ data }`, for a relationship or related document, say. */
export function dataAnswer(data: unknown): TinyAnswer {
  return (res) => sendJson(res, 200, { data });
}

/** The document of `record` in `collection`, as the source serves it, for a test's answer to a record's URL. */
export function recordDocument(base: string, collection: string, record: TinyRecord): string {
  return `{"data":${recordText(base, collection, record)}}`;
}

/** The one page of a list at `<base><collection>/` holding `data`, for a test's answer to a list's URL. */
export function onePage(base: string, collection: string, data: unknown[]) {
  return {
    links: { first: `${base}${collection}/`, last: `${base}${collection}/`, next: null, prev: null },
    data,
    meta: { pagination: { page: 1, pages: 1, count: data.length } },
  };
}

/** The part of a request's path below `/api/`, with `[` and `]` as a client may escape them. */
function pathBelowRoot(url: string | undefined): string {
  return decodeURI((url ?? '').slice('/api/'.length))
    .replace(/%5B/gi, '[')
    .replace(/%5D/gi, ']');
}

interface TinyState {
  term: string;
  held: { arrived: () => void; waiting: Array<() => void> } | null;
}

function tinyHandler(options: TinySourceOptions, state: TinyState): TestHandler {
  const failing = new Set(options.failing ?? []);
  const collections = (): Record<string, TinyRecord[]> =>
    options.collections ?? { units: [{ id: '1', term: state.term }] };
  return (req, res) => {
    options.onRequest?.(req, res);
    if (res.headersSent) return;
    const base = `http://${req.headers.host}/api/`;
    const rest = pathBelowRoot(req.url);
    const answer = options.answers?.[rest];
    if (answer !== undefined) return answer(res, base, req);
    if (failing.has(rest)) return sendJson(res, 500, { errors: [{ status: '500' }] });
    const all = collections();
    if (rest === '') {
      return sendJson(res, 200, { data: Object.fromEntries(Object.keys(all).map((c) => [c, `${base}${c}/`])) });
    }
    const list = /^([a-z-]+)\/(?:\?page\[number\]=([0-9]+))?$/.exec(rest);
    const records = list === null ? undefined : all[list[1]!];
    if (list !== null && records !== undefined) {
      const collection = list[1]!;
      const pageSize = options.pageSize ?? Math.max(1, records.length);
      const pages = Math.max(1, Math.ceil(records.length / pageSize));
      const page = Number(list[2] ?? '1');
      // Without pageSize, a collection's one page is its own URL, not a page of its own.
      const url = (n: number) =>
        options.pageSize === undefined ? `${base}${collection}/` : `${base}${collection}/?page[number]=${n}`;
      const data = records.slice((page - 1) * pageSize, page * pageSize).map((r) => recordText(base, collection, r));
      const links = {
        first: url(1),
        last: url(pages),
        next: page < pages ? url(page + 1) : null,
        prev: page > 1 ? url(page - 1) : null,
      };
      const meta = { pagination: { page, pages, count: records.length } };
      return sendJson(
        res,
        200,
        `{"links":${JSON.stringify(links)},"data":[${data.join(',')}],"meta":${JSON.stringify(meta)}}`,
      );
    }
    const one = /^([a-z-]+)\/([^/]+)\/$/.exec(rest);
    const record = one === null ? undefined : all[one[1]!]?.find((r) => r.id === one[2]);
    if (one !== null && record !== undefined) {
      const send = () => sendJson(res, 200, recordDocument(base, one[1]!, record));
      if (state.held === null) return send();
      state.held.waiting.push(send);
      state.held.arrived();
      return;
    }
    if (options.otherwise !== undefined) return options.otherwise(res, base, req);
    sendJson(res, 404, { errors: [{ status: '404' }] });
  };
}

export async function startTinySource(options: TinySourceOptions = {}): Promise<TinySource> {
  const state: TinyState = { term: options.term ?? 'first', held: null };
  const server = await startServer(tinyHandler(options, state));
  const source: TinySource = {
    ...server,
    root: `${server.url}/api/`,
    get term() {
      return state.term;
    },
    set term(term: string) {
      state.term = term;
    },
    hold: () =>
      new Promise<void>((arrived) => {
        state.held = { arrived, waiting: [] };
      }),
    release: () => {
      const waiting = state.held?.waiting ?? [];
      state.held = null;
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
