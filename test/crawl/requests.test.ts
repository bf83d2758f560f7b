/**
 * What the crawler sends (docs/architecture.md#crawling-rules): the JSON:API Accept, compression, its User-Agent, and
 * proxies from the environment.
 */
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProgressLine, formatProgress } from '../../src/crawl/progress.js';
import { TOOL_VERSION } from '../../src/version.js';
import { runCli } from '../helpers/cli.js';
import { closedAfterEach } from '../helpers/http-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTinySource } from '../helpers/tiny-source.js';

const tinySource = closedAfterEach(startTinySource);

describe('requests', () => {
  it('ask for JSON:API, accept gzip and br, and name the tool', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const server = await tinySource({ onRequest: (req) => seen.push(req.headers) });
    await runCli(['crawl', server.root, '--out', path.join(await tempDir(), 'out'), '--quiet']);
    expect(seen).toHaveLength(3);
    for (const headers of seen) {
      expect(headers.accept).toBe('application/vnd.api+json');
      expect(headers['accept-encoding']).toBe('gzip, br');
      expect(headers['user-agent']).toBe(`cv-snapshot/${TOOL_VERSION}`);
    }
  });

  it('go through the proxy that HTTP_PROXY names', async () => {
    const api = await tinySource();
    const proxied: string[] = [];
    // A minimal forward proxy. undici tunnels through it with CONNECT; plain forwarding is served too.
    const proxy = http.createServer((req, res) => {
      proxied.push(req.url ?? '');
      const upstream = http.request(new URL(req.url ?? ''), { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      proxied.push(`CONNECT ${req.url}`);
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    const sockets = new Set<net.Socket>();
    proxy.on('connection', (socket: net.Socket) => sockets.add(socket));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as { port: number };
      const result = await runCli(['crawl', api.root, '--out', path.join(await tempDir(), 'out'), '--quiet'], {
        env: { HTTP_PROXY: `http://127.0.0.1:${port}`, NO_PROXY: '' },
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const apiHost = new URL(api.root).host;
      expect(proxied.length).toBeGreaterThan(0);
      for (const request of proxied)
        expect(request === `CONNECT ${apiHost}` || request.startsWith(`http://${apiHost}/`), request).toBe(true);
    } finally {
      proxy.closeAllConnections();
      proxy.close();
      for (const socket of sockets) socket.destroy();
    }
  }, 30_000);
});

describe('progress', () => {
  it('writes a plain line per interval in logs and a rewritten line on a terminal', async () => {
    const state = { done: 3, discovered: 10, requests: 4, retries: 1, errors: 0 };
    for (const mode of ['lines', 'tty'] as const) {
      // Waits for the second drawing, however late a loaded machine runs the interval, rather than for a time.
      let written = '';
      let draws = 0;
      let drawnTwice!: () => void;
      const twice = new Promise<void>((resolve) => (drawnTwice = resolve));
      const write = (text: string) => {
        written += text;
        if (++draws === 2) drawnTwice();
        return true;
      };
      const line = new ProgressLine({ write } as unknown as NodeJS.WritableStream, mode, () => state, 10);
      await twice;
      line.stop();
      expect(written).toContain('crawl: 3/10 documents');
      expect(written).toContain('1 retry, 0 errors');
      const drawn = 'crawl: 3/10 documents, \\d+ req/s, 1 retry, 0 errors';
      // Two drawings exactly: a plain line each in logs; on a terminal, each erases the line first, and stop erases it.
      const expected = mode === 'lines' ? `^(${drawn}\n){2}$` : `^(\r\u001b\\[K${drawn}){2}\r\u001b\\[K$`;
      expect(written).toMatch(new RegExp(expected));
    }
    expect(formatProgress(state, 2000)).toBe('3/10 documents, 2 req/s, 1 retry, 0 errors');
  });
});
