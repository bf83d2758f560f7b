/**
 * The sample API behind a gate, for a test that stops a crawl half-way: requests pass through until `holdAfter(n)`
 * has let `n` more documents through, and are then held, unanswered, until `drop()` ends them. A signal sent once the
 * gate holds lands in the middle of the crawl however fast or slow the machine is.
 */
import http from 'node:http';
import type { SampleApi } from '../../src/sample-api/index.js';
import { startServer, type TestServer } from './http-server.js';

export interface Gate extends TestServer {
  /** The sample API's root index, reached through the gate. */
  root: string;
  /** Resolves once `served` more documents have been answered and the next request is held. */
  holdAfter(served: number): Promise<void>;
  /** Ends the requests held (their crawl has been stopped) and lets the next ones through. */
  drop(): void;
}

export async function startGate(api: SampleApi): Promise<Gate> {
  const target = new URL(api.rootUrl);
  let served = 0;
  let hold: { at: number; reached: () => void; held: http.ServerResponse[] } | null = null;
  const server = await startServer((req, res) => {
    if (hold !== null && served >= hold.at) {
      hold.held.push(res);
      return hold.reached();
    }
    const options = { host: target.hostname, port: target.port, path: req.url, headers: req.headers };
    const upstream = http.get(options, (answer) => {
      if (answer.statusCode === 200) served += 1;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
  });
  return {
    ...server,
    root: `${server.url}${target.pathname}`,
    holdAfter: (after) => new Promise<void>((reached) => (hold = { at: served + after, reached, held: [] })),
    drop: () => {
      for (const res of hold?.held ?? []) res.destroy();
      hold = null;
    },
  };
}
