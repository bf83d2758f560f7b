/**
 * `crawl --warc` (docs/capture.md): every exchange of the crawl is in the capture as the source sent it, read back
 * with warcio.js, an independent reader: each response record's block is byte for byte what the source wrote on its
 * socket (chunked transfer coding removed, the content coding kept), retries and failures are there, the digests are
 * true, and no --header value is.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { afterEach, describe, expect, it } from 'vitest';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { startRawSource, type RawAnswer, type RawSource } from '../helpers/raw-source.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const SECRET = 'Bearer s3cret-token';
const JSON_API = 'application/vnd.api+json';

let sources: RawSource[] = [];
afterEach(async () => {
  await Promise.all(sources.map((source) => source.close()));
  sources = [];
});

const unit = (base: string, id: string, attributes: string) =>
  `{"type":"Unit","id":"${id}","attributes":${attributes},"relationships":{},"links":{"self":"${base}units/${id}/"}}`;

/**
 * A root index, a list of three units sent gzipped in chunks, a unit answered 503 before 200, one whose JSON repeats
 * a member name, and one in ISO-8859-1 whose first request loses its connection.
 */
function answer(base: string) {
  return (target: string, count: number): RawAnswer | 'close' => {
    const json = (body: Buffer | string, extra: Array<[string, string]> = []): RawAnswer => ({
      status: '200 OK',
      headers: [['Content-Type', JSON_API], ['X-Served-By', 'raw  source'], ...extra],
      body: Buffer.isBuffer(body) ? body : Buffer.from(body),
    });
    const attributes = (term: string) => `{"term":"${term}"}`;
    switch (target) {
      case '/api/':
        return json(`{"data":{"units":"${base}units/"}}`);
      case '/api/units/': {
        const page = `{"links":{"first":"${base}units/","last":"${base}units/","next":null,"prev":null},"data":[${[
          unit(base, '1', attributes('metre')),
          unit(base, '2', attributes('second')),
          unit(base, '3', attributes('Ångström')),
        ].join(',')}],"meta":{"pagination":{"page":1,"pages":1,"count":3}}}`;
        return { ...json(gzipSync(page), [['Content-Encoding', 'gzip']]), chunked: 50 };
      }
      case '/api/units/1/':
        if (count === 0) return { status: '503 Busy Now', headers: [['Retry-After', '0']], body: Buffer.from('busy') };
        return json(`{"data":${unit(base, '1', attributes('metre'))}}`);
      case '/api/units/2/':
        return json(`{"data":${unit(base, '2', '{"term":"first","term":"second"}')}}`);
      case '/api/units/3/':
        if (count === 0) return 'close';
        return json(Buffer.from(`{"data":${unit(base, '3', attributes('Ångström'))}}`, 'latin1'), [
          ['Content-Type', `${JSON_API}; charset=iso-8859-1`],
        ]);
      default:
        return { status: '404 Not Found', headers: [], body: Buffer.from('{"errors":[]}') };
    }
  };
}

async function rawSource(): Promise<RawSource> {
  let base = '';
  const source = await startRawSource((target, count) => answer(base)(target, count));
  base = `${source.url}/api/`;
  sources.push(source);
  return source;
}

interface ReadRecord {
  type: string;
  uri: string;
  fields: Headers;
  block: Buffer;
}

/** Every record of a capture file, as warcio.js reads it (HTTP left unparsed: the block as stored). */
async function readCapture(file: string): Promise<ReadRecord[]> {
  const records: ReadRecord[] = [];
  for await (const record of WARCParser.iterRecords(createReadStream(file), { parseHttp: false })) {
    const fields = record.warcHeaders.headers as Headers;
    records.push({
      type: record.warcType ?? '',
      uri: record.warcTargetURI ?? '',
      fields,
      block: Buffer.from(await record.readFully(false)),
    });
  }
  return records;
}

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('crawl --warc', () => {
  it('records every exchange as the source sent it, retries and failures included, without secrets', async () => {
    const source = await rawSource();
    const out = path.join(await tempDir(), 'out');
    await crawlForTest(`${source.url}/api/`, out, {
      warc: true,
      catalogue: 'none',
      retries: 1,
      backoffBaseMs: 1,
      headers: [`Authorization: ${SECRET}`],
    });
    const meta = path.join(out, '_cv-snapshot');
    const captures = (await readdir(meta)).filter((name) => name.endsWith('.warc.gz'));
    expect(captures).toEqual(['capture-00001.warc.gz']);
    const file = path.join(meta, captures[0]!);
    const sums = await readFile(path.join(meta, 'SHA256SUMS'), 'utf8');
    expect(sums).toContain(
      `${createHash('sha256')
        .update(await readFile(file))
        .digest('hex')}  _cv-snapshot/${captures[0]}`,
    );

    const records = await readCapture(file);
    expect(records[0]!.type).toBe('warcinfo');
    expect(records[0]!.block.toString()).toContain('software: cv-snapshot/');
    const requests = records.filter((record) => record.type === 'request');
    const responses = records.filter((record) => record.type === 'response');
    // One request record per request the source saw, a connection it dropped included.
    expect(requests.map((record) => new URL(record.uri).pathname).sort()).toEqual(
      source.sent.map((answer) => answer.target).sort(),
    );
    // Each response record's block is the head and the body the source wrote, in the order it wrote them.
    const answered = source.sent.filter((answer) => answer.head !== null);
    expect(responses).toHaveLength(answered.length);
    for (const target of new Set(answered.map((answer) => answer.target))) {
      const recorded = responses.filter((record) => new URL(record.uri).pathname === target);
      const sent = answered.filter((answer) => answer.target === target);
      expect(recorded.map((record) => record.block.toString('latin1'))).toEqual(
        sent.map((answer) => Buffer.concat([answer.head, answer.body]).toString('latin1')),
      );
      for (const [i, record] of recorded.entries()) {
        expect(record.fields.get('WARC-Block-Digest')).toBe(sha256(record.block));
        expect(record.fields.get('WARC-Payload-Digest')).toBe(sha256(sent[i]!.body));
        expect(record.fields.get('Content-Type')).toBe('application/http;msgtype=response');
      }
    }
    // The retried 503 is there before the 200; the list's gzip body is kept as sent.
    const unit1 = responses.filter((record) => record.uri.endsWith('/api/units/1/'));
    expect(unit1.map((record) => record.block.toString('latin1').split('\r\n')[0])).toEqual([
      'HTTP/1.1 503 Busy Now',
      'HTTP/1.1 200 OK',
    ]);
    const list = responses.find((record) => record.uri.endsWith('/api/units/'))!;
    const listBody = list.block.subarray(list.block.indexOf('\r\n\r\n') + 4);
    expect(gunzipSync(listBody).toString()).toContain('"count":3');
    // The dropped connection is a metadata record that refers to its request and says why.
    const failures = records.filter((record) => record.type === 'metadata');
    expect(failures).toHaveLength(1);
    expect(failures[0]!.uri).toBe(`${source.url}/api/units/3/`);
    expect(failures[0]!.block.toString()).toMatch(/^failure: .+\r\n$/);
    const failedRequest = requests.find(
      (record) => record.fields.get('WARC-Record-ID') === failures[0]!.fields.get('WARC-Refers-To'),
    );
    expect(failedRequest?.uri).toBe(`${source.url}/api/units/3/`);
    // The credential is in no record; its header is, by name.
    expect(gunzipSync(await readFile(file)).includes(Buffer.from('s3cret'))).toBe(false);
    for (const request of requests) expect(request.block.toString()).toContain('authorization: ***\r\n');
    // Each request record is the request as it went over the wire, byte for byte, but for the secret.
    expect(requests.map((record) => record.block.toString('latin1')).sort()).toEqual(
      source.received.map((head) => head.replace(SECRET, '***')).sort(),
    );
    expect((await verifySnapshot(out)).problems).toEqual([]);
  }, 60_000);

  it('keeps exactly what the tree cannot: a repeated member name, a body in ISO-8859-1', async () => {
    const source = await rawSource();
    const out = path.join(await tempDir(), 'out');
    await crawlForTest(`${source.url}/api/`, out, { warc: true, catalogue: 'none', retries: 1, backoffBaseMs: 1 });
    const records = await readCapture(path.join(out, '_cv-snapshot', 'capture-00001.warc.gz'));
    const body = (uri: string) => {
      const record = records.find((one) => one.type === 'response' && one.uri === `${source.url}${uri}`)!;
      return record.block.subarray(record.block.indexOf('\r\n\r\n') + 4);
    };
    const stored = (uri: string) => readFile(path.join(out, ...uri.split('/').filter(Boolean), 'index.html'));
    expect(body('/api/units/2/').toString()).toContain('"term":"first","term":"second"');
    // The tree holds the document as JSON reads it: the last of the repeated members.
    expect((await stored('/api/units/2/')).toString()).toContain('"attributes":{"term":"second"}');
    expect((await stored('/api/units/3/')).toString('utf8')).toContain('Ångström');
    expect(body('/api/units/3/').includes(Buffer.from('"term":"Ångström"', 'latin1'))).toBe(true);
    expect(body('/api/units/3/').includes(Buffer.from('Ångström', 'utf8'))).toBe(false);
  }, 60_000);
});
