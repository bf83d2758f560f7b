/**
 * A small source for diff tests: collections of a few records, paginated `pageSize` to a page, each record with a
 * term and, when given, a number attribute written exactly as given (`1e400`, `18446744073709551617`). Paths in
 * `failing` answer 500, so a crawl with --allow-partial and --retries 0 misses them. A crawl of it takes
 * milliseconds: tests of verify, diff and pack that need a real snapshot use it rather than the sample API.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createClock } from '../../src/util/clock.js';
import { createSnapshot } from '../../src/pipeline/create-snapshot.js';
import type { SnapshotOptions } from '../../src/pipeline/snapshot-options.js';
import { sendJson, startServer, type TestServer } from './http-server.js';

export interface TinyRecord {
  id: string;
  term: string;
  /** JSON text of `attributes.value`, written as is. */
  value?: string;
  /** JSON text of the record's `id` in the lists and its document (default: `id` as a string), such as `7`. */
  idJson?: string;
}

export interface TinyVocabulary {
  collections: Record<string, TinyRecord[]>;
  pageSize?: number;
  /** Paths below the root (such as `units/?page[number]=2`) that answer 500. */
  failing?: string[];
}

export interface TinySource extends TestServer {
  root: string;
}

const TYPES: Record<string, string> = { units: 'Unit', things: 'Thing' };

function recordText(base: string, collection: string, record: TinyRecord): string {
  const type = TYPES[collection] ?? 'Thing';
  const value = record.value === undefined ? '' : `,"value":${record.value}`;
  const self = JSON.stringify(`${base}${collection}/${record.id}/`);
  return (
    `{"type":${JSON.stringify(type)},"id":${record.idJson ?? JSON.stringify(record.id)},` +
    `"attributes":{"term":${JSON.stringify(record.term)}${value}},"relationships":{},"links":{"self":${self}}}`
  );
}

async function startTinyVocabulary(vocabulary: TinyVocabulary): Promise<TinySource> {
  const pageSize = vocabulary.pageSize ?? 2;
  const failing = new Set(vocabulary.failing ?? []);
  const server = await startServer((req, res) => {
    const base = `http://${req.headers.host}/api/`;
    const rest = decodeURI((req.url ?? '').slice('/api/'.length))
      .replace(/%5B/gi, '[')
      .replace(/%5D/gi, ']');
    if (failing.has(rest)) return sendJson(res, 500, { errors: [{ status: '500' }] });
    if (rest === '') {
      const data = Object.fromEntries(Object.keys(vocabulary.collections).map((c) => [c, `${base}${c}/`]));
      return sendJson(res, 200, { data });
    }
    const list = /^([a-z]+)\/(?:\?page\[number\]=([0-9]+))?$/.exec(rest);
    const records = list === null ? undefined : vocabulary.collections[list[1]!];
    if (list !== null && records !== undefined) {
      const collection = list[1]!;
      const pages = Math.max(1, Math.ceil(records.length / pageSize));
      const page = Number(list[2] ?? '1');
      const url = (n: number) => `${base}${collection}/?page[number]=${n}`;
      const data = records.slice((page - 1) * pageSize, page * pageSize).map((r) => recordText(base, collection, r));
      const links = {
        first: url(1),
        last: url(pages),
        next: page < pages ? url(page + 1) : null,
        prev: page > 1 ? url(page - 1) : null,
      };
      const meta = { pagination: { page, pages, count: records.length } };
      const body = `{"links":${JSON.stringify(links)},"data":[${data.join(',')}],"meta":${JSON.stringify(meta)}}`;
      return sendJson(res, 200, body);
    }
    const one = /^([a-z]+)\/([^/]+)\/$/.exec(rest);
    const record = one === null ? undefined : vocabulary.collections[one[1]!]?.find((r) => r.id === one[2]);
    if (one !== null && record !== undefined) {
      return sendJson(res, 200, `{"data":${recordText(base, one[1]!, record)}}`);
    }
    sendJson(res, 404, { errors: [{ status: '404' }] });
  });
  return { ...server, root: `${server.url}/api/` };
}

/**
 * A snapshot of `vocabulary`, crawled in-process into `out` (a link to its generation, as --out is), at a fixed
 * time so that two snapshots of one state are the same bytes.
 */
export async function snapshotOf(
  vocabulary: TinyVocabulary,
  out: string,
  options: Partial<SnapshotOptions> = {},
): Promise<string> {
  const source = await startTinyVocabulary(vocabulary);
  try {
    await createSnapshot({
      rootUrl: source.root,
      out,
      retries: 0,
      clock: createClock({ SOURCE_DATE_EPOCH: '1700000000' }),
      ...options,
    });
  } finally {
    await source.close();
  }
  return out;
}

/** `count` records with ids 1… and terms `<prefix>1`…, for a collection. */
export function records(count: number, prefix = 'term '): TinyRecord[] {
  return Array.from({ length: count }, (_, i) => ({ id: String(i + 1), term: `${prefix}${i + 1}` }));
}

/**
 * A copy of the snapshot at `from` (links are followed, as `cp -RL` does) that a test may change. Each directory's
 * entries are copied at once: fs.cp goes one file at a time, several seconds for a snapshot of the sample API.
 */
export async function copySnapshot(from: string, to: string): Promise<string> {
  await mkdir(to);
  await Promise.all(
    (await readdir(from)).map(async (name) => {
      const source = path.join(from, name);
      if ((await stat(source)).isDirectory()) await copySnapshot(source, path.join(to, name));
      else await copyFile(source, path.join(to, name));
    }),
  );
  return to;
}

/** Writes `text` to the snapshot file `rel`, and, with `sums`, its new checksum to SHA256SUMS, as a crawl would. */
export async function rewriteFile(dir: string, rel: string, text: string | Buffer, sums: boolean): Promise<void> {
  const file = path.join(dir, ...rel.split('/'));
  const before = await readFile(file);
  await writeFile(file, text);
  if (!sums) return;
  const hash = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
  const sumsFile = path.join(dir, '_cv-snapshot', 'SHA256SUMS');
  const listed = await readFile(sumsFile, 'utf8');
  await writeFile(sumsFile, listed.replace(`${hash(before)}  ${rel}\n`, `${hash(text)}  ${rel}\n`));
}
