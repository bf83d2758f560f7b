/**
 * Nothing changes silently: text is decoded in the character set the response declares, a body cut
 * off or empty is fetched again before it becomes an error, and numbers keep the source's text byte for byte.
 */
import { readFile } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CrawlStoppedError, FetchError, NotJsonError, UnusableDocumentError } from '../../src/util/errors.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { closedAfterEach, sendJson, serversClosedAfterEach } from '../helpers/http-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';
import { onePage, startTinySource } from '../helpers/tiny-source.js';

const serve = serversClosedAfterEach();
const tinySource = closedAfterEach(startTinySource);

const recordText = (self: string, id: string, term: string) =>
  JSON.stringify({ data: { type: 'Unit', id, attributes: { term }, relationships: {}, links: { self } } });

function sendBytes(res: http.ServerResponse, bytes: Buffer, type: string): void {
  res.writeHead(200, { 'content-type': type, 'content-length': bytes.length });
  res.end(bytes);
}

/** A source listing the units `Object.keys(answers)` (each term its id), whose record `<id>` `answers[id]` answers. */
function recordSource(answers: Record<string, (res: http.ServerResponse, self: string) => void>) {
  const ids = Object.keys(answers);
  return tinySource({
    collections: { units: ids.map((id) => ({ id, term: id })) },
    answers: Object.fromEntries(
      ids.map((id) => [
        `units/${id}/`,
        (res: http.ServerResponse, base: string) => answers[id]!(res, `${base}units/${id}/`),
      ]),
    ),
  });
}

const stored = async (out: string, id: string) =>
  (
    JSON.parse(await readFile(path.join(out, `api/units/${id}/index.html`), 'utf8')) as {
      data: { attributes: { term: string } };
    }
  ).data.attributes.term;

describe('character sets', () => {
  it('are honoured as declared or as a byte order mark shows, and a UTF-8 BOM is dropped', async () => {
    const term = 'Ångström café, naïve — µm';
    const server = await recordSource({
      '1': (res, self) =>
        sendBytes(
          res,
          Buffer.from(recordText(self, '1', 'Ångström café, naïve µm'), 'latin1'),
          'application/vnd.api+json; charset=iso-8859-1',
        ),
      '2': (res, self) =>
        sendBytes(
          res,
          Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(recordText(self, '2', term))]),
          'application/vnd.api+json',
        ),
      '3': (res, self) =>
        sendBytes(
          res,
          Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(recordText(self, '3', term), 'utf16le')]),
          'application/vnd.api+json',
        ),
      '4': (res, self) =>
        sendBytes(
          res,
          Buffer.from(recordText(self, '4', term), 'utf16le').swap16(),
          'application/vnd.api+json; charset="UTF-16BE"',
        ),
      '5': (res, self) =>
        sendBytes(res, Buffer.from(recordText(self, '5', term)), 'application/vnd.api+json; charset=utf-8'),
    });
    const out = path.join(await tempDir(), 'out');
    await crawlForTest(server.root, out);
    expect(await stored(out, '1')).toBe('Ångström café, naïve µm');
    for (const id of ['2', '3', '4', '5']) expect(await stored(out, id), id).toBe(term);
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });

  it('invalid UTF-8 is fetched again, then an error naming the URL; never stored as U+FFFD', async () => {
    const server = await recordSource({
      '1': (res, self) => sendBytes(res, Buffer.from(recordText(self, '1', 'ok')), 'application/vnd.api+json'),
      '2': (res, self) =>
        sendBytes(res, Buffer.from(recordText(self, '2', 'caf\u00e9'), 'latin1'), 'application/vnd.api+json'),
    });
    const error = await crawlForTest(server.root, path.join(await tempDir(), 'out'), {
      retries: 1,
      backoffBaseMs: 1,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrawlStoppedError);
    expect((error as CrawlStoppedError).cause).toBeInstanceOf(FetchError);
    expect((error as Error).message).toContain(
      `${server.url}/api/units/2/ could not be fetched: its body is not valid UTF-8`,
    );
    expect(server.requests.filter((u) => u === '/api/units/2/')).toHaveLength(2);
  });

  it('a character set nothing can decode is a clear error at once', async () => {
    const server = await recordSource({
      '1': (res, self) =>
        sendBytes(res, Buffer.from(recordText(self, '1', 'x')), 'application/vnd.api+json; charset=x-klingon'),
    });
    const error = await crawlForTest(server.root, path.join(await tempDir(), 'out'), { retries: 3 }).catch(
      (e: unknown) => e,
    );
    expect((error as CrawlStoppedError).cause).toBeInstanceOf(UnusableDocumentError);
    expect((error as Error).message).toContain(
      `${server.url}/api/units/1/ cannot be stored: ` +
        'it declares the character set "x-klingon", which cannot be decoded.',
    );
    expect(server.requests.filter((u) => u === '/api/units/1/')).toHaveLength(1);
  });
});

describe('content codings', () => {
  /** Answers with the text in the codings listed, applied in that order, as Content-Encoding names them. */
  const sendCoded = (res: http.ServerResponse, text: string, codings: string[], header = codings.join(', ')) => {
    const coders: Record<string, (b: Buffer) => Buffer> = {
      gzip: (b) => zlib.gzipSync(b),
      br: (b) => zlib.brotliCompressSync(b),
      deflate: (b) => zlib.deflateSync(b),
      identity: (b) => b,
    };
    const bytes = codings.reduce<Buffer>((body, coding) => coders[coding]!(body), Buffer.from(text));
    res.writeHead(200, {
      'content-type': 'application/vnd.api+json',
      'content-length': bytes.length,
      'content-encoding': header,
    });
    res.end(bytes);
  };

  it('stacked ones are undone from the last, and the stored document is the text the source coded', async () => {
    const stacks: Record<string, string[]> = {
      '1': ['gzip', 'br'],
      '2': ['gzip', 'gzip'],
      '3': ['deflate', 'identity', 'gzip'],
      '4': ['br'],
    };
    const server = await recordSource(
      Object.fromEntries(
        Object.entries(stacks).map(([id, codings]) => [
          id,
          (res: http.ServerResponse, self: string) => sendCoded(res, recordText(self, id, `term ${id}`), codings),
        ]),
      ),
    );
    const out = path.join(await tempDir(), 'out');
    await crawlForTest(server.root, out);
    for (const id of Object.keys(stacks)) expect(await stored(out, id), id).toBe(`term ${id}`);
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });

  it('one that cannot be undone is named, with the stack it came in, before anything is decoded', async () => {
    const server = await recordSource({
      '1': (res, self) => sendCoded(res, recordText(self, '1', 'x'), ['gzip'], 'gzip, compress'),
    });
    const error = await crawlForTest(server.root, path.join(await tempDir(), 'out'), { retries: 3 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CrawlStoppedError);
    expect((error as Error).message).toContain(
      `${server.url}/api/units/1/ could not be fetched: the response uses the unsupported content encoding ` +
        '"compress" (of "gzip, compress")',
    );
    expect(server.requests.filter((u) => u === '/api/units/1/')).toHaveLength(1);
  });

  it('each step is held to --max-bytes: a body compressed twice cannot grow past it', async () => {
    const big = JSON.stringify({ data: { units: 'x'.repeat(300_000) } });
    const server = await serve((req, res) => sendCoded(res, big, ['gzip', 'gzip']));
    const error = await crawlForTest(`${server.url}/api/`, path.join(await tempDir(), 'out'), {
      maxBytes: 100_000,
    }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('over the --max-bytes limit of 100000');
  });
});

describe('bodies that are cut off, empty or not JSON', () => {
  it('are fetched again like a stall: a close-delimited body cut halfway and an empty 200', async () => {
    const calls: Record<string, number> = {};
    const server = await recordSource({
      '1': (res, self) => {
        calls['1'] = (calls['1'] ?? 0) + 1;
        const text = recordText(self, '1', 'one');
        // No Content-Length: the body ends when the connection closes, here halfway through.
        res.writeHead(200, { 'content-type': 'application/vnd.api+json', connection: 'close' });
        res.end(calls['1'] === 1 ? text.slice(0, text.length >> 1) : text);
      },
      '2': (res, self) => {
        calls['2'] = (calls['2'] ?? 0) + 1;
        if (calls['2'] === 1) return sendBytes(res, Buffer.alloc(0), 'application/vnd.api+json');
        sendBytes(res, Buffer.from(recordText(self, '2', 'two')), 'application/vnd.api+json');
      },
    });
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(server.root, out, { retries: 2, backoffBaseMs: 1 });
    expect(calls).toEqual({ '1': 2, '2': 2 });
    expect(result.retries).toBe(2);
    expect(await stored(out, '1')).toBe('one');
    expect(await stored(out, '2')).toBe('two');
  });

  it('that never read are an error after the retries; HTML still fails at once with its hint', async () => {
    const server = await recordSource({
      '1': (res) => sendBytes(res, Buffer.from('{"data": '), 'application/vnd.api+json'),
      '2': (res) => sendBytes(res, Buffer.from('<!doctype html><title>API</title>'), 'text/html; charset=utf-8'),
    });
    const broken = await crawlForTest(server.root, path.join(await tempDir(), 'out'), {
      retries: 2,
      backoffBaseMs: 1,
      allowPartial: true,
    });
    const failures = Object.fromEntries(
      broken.report.findings.filter((f) => f.rule === 'fetch.failed').map((f) => [f.url.slice(-3, -1), f.message]),
    );
    // A finding is printed after its URL: its message does not say the URL again.
    expect(failures['/1']).toMatch(/^Could not be fetched: its body is not valid JSON: .* \(after 3 attempts\)/);
    expect(failures['/2']).toMatch(
      /^Did not answer with JSON \(it sent text\/html; charset=utf-8, the browsable HTML page\)/,
    );
    for (const message of Object.values(failures)) expect(message).not.toContain(server.url);
    expect(server.requests.filter((u) => u === '/api/units/1/')).toHaveLength(3);
    expect(server.requests.filter((u) => u === '/api/units/2/')).toHaveLength(1);
  });

  it('a body of another type that is not JSON fails at once, its snippet made safe to print', async () => {
    const server = await serve((_req, res) =>
      sendBytes(res, Buffer.from('\u001b[2J\u001b]0;owned\u0007 maintenance'), 'text/plain'),
    );
    const error = await crawlForTest(`${server.url}/api/`, path.join(await tempDir(), 'out'), { retries: 3 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotJsonError);
    // eslint-disable-next-line no-control-regex -- the message must hold no control character
    expect((error as Error).message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect((error as Error).message).toContain('\\u001b[2J');
    expect(server.requests).toHaveLength(1);
  });
});

describe('numbers', () => {
  it('keep the source text byte for byte, in records and complete collections, and validate as numbers', async () => {
    const numbers =
      '{"big":18446744073709551617,"huge":1e400,"tiny":-1e-400,"long":0.10000000000000000555,' +
      '"one":1.0,"half":1.50,"negzero":-0,"exp":2E+3,"small":5,"plain":0.5}';
    const attributes = `{"term":"t","numbers":${numbers},"order":{"b":1,"2":2,"a":3,"1":4}}`;
    const resource = (base: string) =>
      `{"type":"Unit","id":"1","attributes":${attributes},"relationships":{},"links":{"self":"${base}units/1/"}}`;
    // The list's page number is written 1.0, which no record of the builder's can say.
    const list = (base: string) =>
      JSON.stringify(onePage(base, 'units', ['one']))
        .replace('"data":["one"]', `"data":[${resource(base)}]`)
        .replace('"page":1', '"page":1.0');
    const server = await tinySource({
      answers: {
        'units/': (res, base) => sendJson(res, 200, list(base)),
        'units/1/': (res, base) => sendJson(res, 200, `{"data":${resource(base)}}`),
      },
    });
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(server.root, out);
    for (const file of ['api/units/1/index.html', 'api/units/page/1/index.html', 'api/units/index.html']) {
      const text = await readFile(path.join(out, file), 'utf8');
      expect(text, file).toContain(`"numbers":${numbers}`);
      expect(text, file).toContain('"order":{"b":1,"2":2,"a":3,"1":4}');
    }
    expect(await readFile(path.join(out, 'api/units/page/1/index.html'), 'utf8')).toContain(
      '"pagination":{"page":1.0,"pages":1,"count":1}',
    );
    // page 1.0 is page 1 to validation, as it is to any JSON reader.
    expect(result.report.findings.filter((f) => f.rule.startsWith('pagination'))).toEqual([]);
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });
});

describe('what a stored document cannot say as the source did', () => {
  it('a member name given twice, anywhere in a document, is a json.duplicate finding at its pointer', async () => {
    const server = await recordSource({
      '1': (res, self) =>
        sendBytes(
          res,
          Buffer.from(
            `{"data":{"type":"Unit","id":"1","attributes":{"term":"one","status":"ACCEPTED","status":"DEPRECATED"},` +
              `"relationships":{},"links":{"self":"${self}"}},"meta":{"notes":[{"a":1,"a":1.50,"a":"x"}]}}`,
          ),
          'application/vnd.api+json',
        ),
      '2': (res, self) => sendBytes(res, Buffer.from(recordText(self, '2', 'two')), 'application/vnd.api+json'),
    });
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(server.root, out);
    const duplicates = result.report.findings.filter((f) => f.rule === 'json.duplicate');
    const record = `${server.url}/api/units/1/`;
    expect(duplicates.map((f) => [f.url, f.pointer, f.severity])).toEqual([
      [record, '/data/attributes/status', 'error'],
      [record, '/meta/notes/0/a', 'error'],
    ]);
    expect(duplicates[0]!.message).toContain('"ACCEPTED", "DEPRECATED"');
    expect(duplicates[1]!.message).toContain('(1, 1.50, "x")');
    // What JSON.parse makes of it, as every client of the mirror will.
    const json = JSON.parse(await readFile(path.join(out, 'api/units/1/index.html'), 'utf8')) as {
      data: { attributes: Record<string, unknown> };
    };
    expect(json.data.attributes.status).toBe('DEPRECATED');
  });

  it('a body not sent as plain UTF-8 is a json.encoding warning; ASCII in another charset is not', async () => {
    const server = await recordSource({
      '1': (res, self) =>
        sendBytes(
          res,
          Buffer.from(recordText(self, '1', 'caf\u00e9'), 'latin1'),
          'application/vnd.api+json; charset=iso-8859-1',
        ),
      '2': (res, self) =>
        sendBytes(
          res,
          Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(recordText(self, '2', 'two'))]),
          'application/vnd.api+json',
        ),
      '3': (res, self) =>
        sendBytes(res, Buffer.from(recordText(self, '3', 'three')), 'application/vnd.api+json; charset=iso-8859-1'),
      '4': (res, self) =>
        sendBytes(res, Buffer.from(recordText(self, '4', 'caf\u00e9')), 'application/vnd.api+json; charset=utf-8'),
    });
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(server.root, out);
    const encodings = result.report.findings.filter((f) => f.rule === 'json.encoding');
    expect(encodings.map((f) => [f.url, f.severity, f.message])).toEqual([
      [
        `${server.url}/api/units/1/`,
        'warning',
        'The body was sent in windows-1252; the snapshot stores the same text in UTF-8.',
      ],
      [
        `${server.url}/api/units/2/`,
        'warning',
        'The body was sent with a UTF-8 byte order mark; the snapshot stores the same text in UTF-8.',
      ],
    ]);
  });
});

describe('values a round trip through JavaScript could change', () => {
  it('keep their value: __proto__ members, lone surrogates, NUL, escapes, big and negative-zero numbers', async () => {
    const attributes =
      '{"term":"x","__proto__":{"polluted":true},"lone":"\\ud800 and \\udfff","nul":"a\\u0000b",' +
      '"\\u0000":1,"esc":"\\/\\u0041\\t","big":123456789012345678901234567890,"tiny":1e-400,"huge":1E+400,' +
      '"zero":-0,"one":1.0,"list":[-0.0,1.10,2e2],"7":"index"}';
    const server = await recordSource({
      '1': (res, self) => {
        const links = `"relationships":{},"links":{"self":"${self}"}`;
        const sent = `{"data":{"type":"Unit","id":"1","attributes":${attributes},${links}}}`;
        sendBytes(res, Buffer.from(sent), 'application/vnd.api+json');
      },
    });
    const out = path.join(await tempDir(), 'out');
    const result = await crawlForTest(server.root, out);
    const text = await readFile(path.join(out, 'api/units/1/index.html'), 'utf8');
    const attributesAt = text.indexOf('"attributes":') + '"attributes":'.length;
    // The attributes hold no link and no markup character: stored as the source spelled each value.
    const storedAttributes = text.slice(attributesAt, text.indexOf(',"relationships"'));
    expect(JSON.parse(storedAttributes)).toEqual(JSON.parse(attributes));
    expect(Object.keys(JSON.parse(storedAttributes) as object)).toContain('__proto__');
    for (const spelling of ['123456789012345678901234567890', '1e-400', '1E+400', '-0', '1.0', '-0.0', '1.10', '2e2']) {
      expect(storedAttributes).toContain(spelling);
    }
    expect(Object.keys(JSON.parse(storedAttributes) as object)).toEqual(Object.keys(JSON.parse(attributes) as object));
    expect(result.report.findings.filter((f) => f.url === `${server.url}/api/units/1/`)).toEqual([]);
  });
});
