/**
 * A request Node could not parse (an over-long URL or header, a malformed request line) or that did not arrive in
 * time gets a JSON:API error document, as every other answer of `cv-snapshot serve` does, instead of Node's bare
 * status line. There is no request or response object for it: the answer is written to the socket, and only when
 * no response has started on that connection (a byte of its own would corrupt it), as Node itself does.
 */
import type { Duplex } from 'node:stream';
import { maxHeaderSize, type ServerResponse } from 'node:http';
import { errorDocument, NO_SNIFF } from '../format/host-files.js';
import { JSON_API } from './respond.js';

const ANSWERS: Readonly<Record<string, readonly [number, string, string]>> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'Request Header Fields Too Large',
    `The request line and headers are longer than this server takes (${Math.floor(maxHeaderSize / 1024)} KB in all); ` +
      'no document of this snapshot has so long a URL.',
  ],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Content Too Large', 'The request body is too large; the mirror is read-only.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request did not arrive in time.'],
};
const BAD_REQUEST = [400, 'Bad Request', 'The request is not valid HTTP/1.1.'] as const;

export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  response: ServerResponse | undefined,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent === true) {
    socket.destroy();
    return;
  }
  const [status, title, detail] = ANSWERS[error.code ?? ''] ?? BAD_REQUEST;
  const body = errorDocument(status, title, detail);
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: ${JSON_API}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${NO_SNIFF[0]}: ${NO_SNIFF[1]}\r\nConnection: close\r\n\r\n${body}`,
  );
}
