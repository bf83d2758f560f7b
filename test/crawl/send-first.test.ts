/**
 * A request the crawl starts goes out before the CPU work on the response that freed its slot (scheduler.ts,
 * `unsent`): undici writes a request to a reused connection only from a later turn of the event loop, so the
 * scheduler waits for the fetcher's unsent requests to be written, for a few turns at most, before it processes.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FetchedResponse } from '../../src/crawl/fetcher.js';
import { Scheduler } from '../../src/crawl/scheduler.js';
import { sendJson, startServer } from '../helpers/http-server.js';
import { testFetcher } from '../helpers/test-fetcher.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const fetcher = () => testFetcher(closers);

describe('the requests a response frees', () => {
  it('are written to their connection before that response is processed', async () => {
    const server = await startServer((req, res) => sendJson(res, 200, { data: { url: req.url } }));
    closers.push(() => server.close());
    const http = fetcher();
    const urls = Array.from({ length: 40 }, (_, i) => `${server.url}/api/${i}`);
    const unsentWhenProcessed: number[] = [];
    const processed: string[] = [];
    const scheduler = new Scheduler({
      concurrency: 2,
      fetch: (url, signal) => http.fetch(url, signal),
      unsent: () => http.unsent,
      process: ({ url }) => {
        unsentWhenProcessed.push(http.unsent);
        processed.push(url);
        return Promise.resolve();
      },
    });
    await scheduler.run(urls);

    expect(processed.sort()).toEqual([...urls].sort());
    expect(server.requests.sort()).toEqual(urls.map((url) => url.slice(server.url.length)).sort());
    // Each response freed a slot, and the next URL was started on a kept-alive connection before it was processed.
    expect(unsentWhenProcessed.every((n) => n === 0)).toBe(true);
    expect(http.unsent).toBe(0);
  });

  it('do not hold the processing back for long: a connection that is slow to open is not waited for', async () => {
    const processed: string[] = [];
    const scheduler = new Scheduler({
      concurrency: 4,
      fetch: (url): Promise<FetchedResponse> =>
        Promise.resolve({ status: 200, headers: {}, body: Buffer.from(url), attempts: 1 }),
      // As if a request were waiting for its connection for the whole crawl.
      unsent: () => 1,
      process: ({ url }) => {
        processed.push(url);
        return Promise.resolve();
      },
    });
    const urls = Array.from({ length: 20 }, (_, i) => `http://127.0.0.1:9/${i}`);
    await scheduler.run(urls);
    expect(processed).toEqual(urls);
  });
});

describe('the count of unsent requests', () => {
  it('falls back to 0 when a request fails before it is written', async () => {
    // A port with nothing listening: the connection is refused, the request never written.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const http = fetcher();
    const failed = http.fetch(`http://127.0.0.1:${port}/api/`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(http.unsent).toBe(1); // Dispatched, waiting for its connection.
    expect(await failed).toBeInstanceOf(Error);
    expect(http.unsent).toBe(0);
  });

  it('falls back to 0 when the exchange is aborted before it is written', async () => {
    // A server that accepts connections and never answers, and a crawl stopped while a request waits for one.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const { port } = silent.address() as net.AddressInfo;

    const http = fetcher();
    const stop = new AbortController();
    const pending = Array.from({ length: 3 }, (_, i) =>
      http.fetch(`http://127.0.0.1:${port}/api/${i}`, stop.signal).then(
        () => null,
        (error: unknown) => error,
      ),
    );
    // Two connections (the fetcher's concurrency): two requests are written, the third waits for a connection.
    await expect.poll(() => http.unsent).toBe(1);
    stop.abort(new Error('stopped'));
    for (const error of await Promise.all(pending)) expect(error).toBeInstanceOf(Error);
    expect(http.unsent).toBe(0);
  });
});
