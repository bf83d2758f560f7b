/** A purpose-built HTTP server on 127.0.0.1 for tests that need a source the sample API cannot be. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
