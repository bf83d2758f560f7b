/** A purpose-built HTTP server on 127.0.0.1 for tests that need a source the sample API cannot be. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface TestServer {
  url: string;
  requests: string[];
  /** Stops the server; rejects with the error of a handler that failed, so the test fails with it. */
  close(): Promise<void>;
}

/** Answers a request; may be asynchronous (its result is otherwise ignored, as with http.RequestListener). */
export type TestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => unknown;

export async function startServer(handler: TestHandler): Promise<TestServer> {
  const requests: string[] = [];
  let failure: { error: unknown } | undefined;
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    // An asynchronous handler's rejection would otherwise be unhandled, far from the test that caused it.
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      failure ??= { error };
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close(() => (failure === undefined ? resolve() : reject(failure.error)));
      }),
  };
}

/**
 * `start`, wrapped so that what it starts is closed after the test that started it (a server's handler that failed
 * then fails that test). Call it at the top level of the file.
 */
export function closedAfterEach<A extends unknown[], T extends { close(): Promise<void> }>(
  start: (...args: A) => Promise<T>,
): (...args: A) => Promise<T> {
  let started: T[] = [];
  afterEach(async () => {
    const closing = started;
    started = [];
    await Promise.all(closing.map((item) => item.close()));
  });
  return async (...args) => {
    const item = await start(...args);
    started.push(item);
    return item;
  };
}

/** A test file's `serve(handler)`: a server closed after the test that started it. */
export function serversClosedAfterEach(): (handler: TestHandler) => Promise<TestServer> {
  return closedAfterEach(startServer);
}

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  type = 'application/vnd.api+json',
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, vary: 'Accept', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * A unit whose `successor` the list gives with links only (spec 2.4), as the service does: where it leads is in its
 * relationship and related documents. `related` replaces its related link.
 */
export function linksOnlyUnit(base: string, id: string, related = `${base}units/${id}/successor/`) {
  return {
    type: 'Unit',
    id,
    attributes: { term: `term ${id}` },
    relationships: { successor: { links: { self: `${base}units/${id}/relationships/successor`, related } } },
    links: { self: `${base}units/${id}/` },
  };
}
