/**
 * A source that writes its answers byte by byte on a plain TCP socket, and keeps what it wrote: the tests of the
 * capture compare each record with exactly what went over the wire. Keep-alive, GET only, no request bodies.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface RawAnswer {
  /** Status code and reason phrase, such as `200 OK`. */
  status: string;
  /** Header lines in the order sent, names as written. Content-Length is added unless `chunked`. */
  headers: Array<[string, string]>;
  body: Buffer;
  /** Send the body in chunks of this many bytes, with `Transfer-Encoding: chunked`. */
  chunked?: number;
}

/** What the source sent for one request: the head (status line to blank line) and the body before chunking. */
export interface SentAnswer {
  target: string;
  head: Buffer;
  body: Buffer;
}

export interface RawSource {
  url: string;
  /** Every answer sent, in order; a connection closed without an answer is `{target, head: null}`. */
  sent: Array<SentAnswer | { target: string; head: null }>;
  /** Every request's head as it arrived (request line to blank line, latin1), in order. */
  received: string[];
  close(): Promise<void>;
}

/** `answer(target, count)`: `count` is how often the target was asked for before; 'close' drops the connection. */
export async function startRawSource(
  answer: (target: string, count: number) => RawAnswer | 'close',
): Promise<RawSource> {
  const sent: RawSource['sent'] = [];
  const received: string[] = [];
  const counts = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        received.push(pending.toString('latin1', 0, end + 4));
        const target = pending.toString('latin1', 0, end).split('\r\n')[0]!.split(' ')[1]!;
        pending = pending.subarray(end + 4);
        const count = counts.get(target) ?? 0;
        counts.set(target, count + 1);
        const reply = answer(target, count);
        if (reply === 'close') {
          sent.push({ target, head: null });
          socket.destroy();
          return;
        }
        socket.write(write(reply, target, sent));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function write(reply: RawAnswer, target: string, sent: RawSource['sent']): Buffer {
  const headers = [...reply.headers];
  if (reply.chunked === undefined) headers.push(['Content-Length', String(reply.body.length)]);
  else headers.push(['Transfer-Encoding', 'chunked']);
  const head = Buffer.from(
    `HTTP/1.1 ${reply.status}\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`,
    'latin1',
  );
  sent.push({ target, head, body: reply.body });
  if (reply.chunked === undefined) return Buffer.concat([head, reply.body]);
  const parts: Buffer[] = [head];
  for (let at = 0; at < reply.body.length; at += reply.chunked) {
    const chunk = reply.body.subarray(at, at + reply.chunked);
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}
