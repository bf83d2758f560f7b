/**
 * Every request ends: a body that is not wanted is not read forever, a body that trickles in just
 * faster than --timeout still meets the attempt's deadline, and so does a server that sends informational answers
 * without end. Each is then retried like a stall, and the crawl ends with a sentence naming the URL.
 */
import type http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CrawlStoppedError, FetchError } from '../../src/util/errors.js';
import type { FetcherOptions } from '../../src/crawl/fetcher.js';
import { sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { testFetcher } from '../helpers/test-fetcher.js';
import { crawlForTest } from '../helpers/crawl.js';
import { startTinySource, type TinySource, type TinySourceOptions } from '../helpers/tiny-source.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function serve(handler: http.RequestListener): Promise<TestServer> {
  const server = await startServer(handler);
  closers.push(() => server.close());
  return server;
}

async function tinySource(options: TinySourceOptions): Promise<TinySource> {
  const source = await startTinySource(options);
  closers.push(() => source.close());
  return source;
}

/** Writes `chunk` every `everyMs` until the client goes away; the answer never ends. */
function trickle(res: http.ServerResponse, chunk: string, everyMs: number): void {
  const timer = setInterval(() => res.write(chunk), everyMs);
  res.on('close', () => clearInterval(timer));
}

const fetcher = (options: Partial<FetcherOptions> = {}) => testFetcher(closers, options);

describe('an answer whose body is not wanted and never ends', () => {
  it('a 503 is retried and a redirect followed, without reading their endless bodies', async () => {
    const server = await tinySource({
      collections: { units: [] },
      answers: {
        '': (res, base) => sendJson(res, 200, { data: { units: `${base}units`, sites: `${base}sites/` } }),
        units: (res, base) => {
          res.writeHead(301, { location: `${base}units/`, 'content-type': 'text/html' });
          trickle(res, 'x'.repeat(4096), 1);
        },
        'sites/': (res) => {
          res.writeHead(503, { 'content-type': 'text/html' });
          trickle(res, 'x'.repeat(4096), 1);
        },
      },
    });
    const error = await crawlForTest(server.root, path.join(await tempDir(), 'out'), {
      retries: 1,
      backoffBaseMs: 1,
      allowPartial: true,
    }).then(
      (result) => result,
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(Error);
    const result = error as Awaited<ReturnType<typeof crawlForTest>>;
    expect(result.missing).toEqual([`${server.url}/api/sites/`]);
    expect(server.requests.filter((u) => u === '/api/sites/')).toHaveLength(2);
    expect(server.requests).toContain('/api/units/');
    expect(result.report.findings.find((f) => f.rule === 'fetch.failed')?.message).toContain(
      'HTTP 503 (after 2 attempts)',
    );
  });

  it('a 404 whose body never ends is a dead link, not a hang', async () => {
    const server = await tinySource({
      answers: {
        'units/': (res) => {
          res.writeHead(404, { 'content-type': 'application/vnd.api+json' });
          res.write('{"errors":[');
          trickle(res, '{},'.repeat(1000), 1);
        },
      },
    });
    const result = await crawlForTest(server.root, path.join(await tempDir(), 'out'));
    expect(result.report.findings.map((f) => [f.url, f.rule])).toContainEqual([
      `${server.url}/api/units/`,
      'link.dead',
    ]);
  });
});

describe('the deadline of an attempt', () => {
  it('is ten times --timeout: a body trickling faster than --timeout ends there, named in the error', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.api+json' });
      res.write('{"data":"');
      trickle(res, 'x', 5);
    });
    const error = await fetcher({ timeoutMs: 150 })
      .fetch(`${server.url}/api/`)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as Error).message).toBe(
      `${server.url}/api/ could not be fetched: the body of the HTTP 200 answer did not complete within 1500 ms ` +
        '(10 × --timeout) (after 1 attempt). Check that the service is up, or try again with more --retries or a ' +
        'longer --timeout.',
    );
  });

  it('of a --timeout of weeks does not overflow the timer and fail every request at once', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { data: { units: 'x' } }));
    const response = await fetcher({ timeoutMs: 2_000_000_000 }).fetch(`${server.url}/api/`);
    expect(response.status).toBe(200);
  });

  it('is retried like a stall, and a later complete answer is used', async () => {
    let calls = 0;
    const server = await serve((_req, res) => {
      calls += 1;
      if (calls === 1) {
        res.writeHead(200, { 'content-type': 'application/vnd.api+json' });
        return trickle(res, ' ', 10);
      }
      sendJson(res, 200, { data: { units: 'x' } });
    });
    const response = await fetcher({ attemptDeadlineMs: 300, retries: 1 }).fetch(`${server.url}/api/`);
    expect(response.status).toBe(200);
    expect(response.attempts).toBe(2);
    expect(JSON.parse(response.body.toString())).toEqual({ data: { units: 'x' } });
  });

  it('ends a server that sends informational answers without end', async () => {
    // A plain socket: an HTTP server does not write 1xx answers without end.
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => {
        const timer = setInterval(
          () => socket.write('HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n'),
          10,
        );
        socket.on('close', () => clearInterval(timer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
    const error = await fetcher({ attemptDeadlineMs: 300, retries: 1 })
      .fetch(url)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect((error as Error).message).toContain(
      `${url} could not be fetched: the response did not complete within 300 ms (after 2 attempts)`,
    );
  });

  it('ends the crawl with the URL when every attempt runs out of time', async () => {
    const server = await tinySource({
      answers: {
        'units/': (res) => {
          res.writeHead(200, { 'content-type': 'application/vnd.api+json' });
          trickle(res, ' ', 10);
        },
      },
    });
    const error = await crawlForTest(server.root, path.join(await tempDir(), 'out'), { timeoutMs: 150 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CrawlStoppedError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `${server.url}/api/units/ could not be fetched: ` +
          '(the body of the HTTP 200 answer did not complete within 1500 ms|the body stalled)',
      ),
    );
  });
});
