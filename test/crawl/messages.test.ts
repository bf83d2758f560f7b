/**
 * Messages that send the user the right way: each failure of a request suggests what helps for that
 * failure, never echoes a password, and never prints a control character a server sent.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/crawl/fetcher.js';
import { CvSnapshotError } from '../../src/util/errors.js';
import { type createSnapshot } from '../../src/pipeline/create-snapshot.js';
import { runMain } from '../helpers/cli.js';
import { sendJson, serversClosedAfterEach } from '../helpers/http-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const serve = serversClosedAfterEach();

/** The message a crawl of `root` fails with (what the command line prints after "cv-snapshot crawl: "). */
async function failure(root: string, options: Partial<Parameters<typeof createSnapshot>[0]> = {}): Promise<string> {
  const error = await crawlForTest(root, path.join(await tempDir(), 'out'), options).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CvSnapshotError);
  return (error as Error).message;
}

const RETRY_HINT = 'try again with more --retries';

describe('a request that fails', () => {
  it('over --max-bytes suggests raising --max-bytes, for plain, gzip, deflate and br bodies', async () => {
    const body = Buffer.from(JSON.stringify({ data: { units: 'x'.repeat(300_000) } }));
    const encoders: Record<string, (b: Buffer) => Buffer> = {
      plain: (b) => b,
      gzip: (b) => zlib.gzipSync(b),
      deflate: (b) => zlib.deflateSync(b),
      br: (b) => zlib.brotliCompressSync(b),
    };
    const server = await serve((req, res) => {
      const encoding = (req.url ?? '').split('/')[1]!;
      const bytes = encoders[encoding]!(body);
      res.writeHead(200, {
        'content-type': 'application/vnd.api+json',
        'content-length': bytes.length,
        ...(encoding === 'plain' ? {} : { 'content-encoding': encoding }),
      });
      res.end(bytes);
    });
    for (const encoding of Object.keys(encoders)) {
      const message = await failure(`${server.url}/${encoding}/`, { maxBytes: 100_000, retries: 2 });
      expect(message, encoding).toContain('over the --max-bytes limit of 100000');
      expect(message, encoding).toContain(
        '(after 1 attempt). If the document really is that large, raise --max-bytes.',
      );
      expect(message, encoding).not.toContain(RETRY_HINT);
    }
  });

  it('to a host that does not resolve says to check the host name', async () => {
    const message = await failure('http://cv-snapshot-test.invalid/sms/cv/api/v1/');
    expect(message).toContain('the host name could not be resolved');
    expect(message).toContain('Check the host name in the URL');
    expect(message).not.toContain(RETRY_HINT);
  });

  it('to a port where nothing listens says so', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failure(`http://127.0.0.1:${port}/api/`)).toContain(
      `http://127.0.0.1:${port}/api/ could not be fetched: the connection was refused (after 1 attempt). ` +
        'Nothing is listening there',
    );
  });

  it('never echoes a password given in the root URL', async () => {
    const run = await runMain([
      'crawl',
      'http://admin:s3cr3t-pw@127.0.0.1:9/api/',
      '--out',
      path.join(await tempDir(), 'out'),
    ]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('http://***@127.0.0.1:9/api/');
    expect(run.stderr).not.toContain('s3cr3t-pw');
  });

  it('never prints control characters a server put in a header or a body', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/html/') {
        // Header values may carry bytes 0x80-0xff; 0x9b is the one-byte CSI of some terminals.
        res.writeHead(200, { 'content-type': 'text/html; x=\u009b2J' });
        return res.end('<p>');
      }
      sendJson(res, 200, '\u001b]0;pwned\u0007{', 'application/json');
    });
    for (const root of [`${server.url}/html/`, `${server.url}/json/`]) {
      const message = await failure(root);
      expect(message, root).toContain(root);
      // eslint-disable-next-line no-control-regex -- the message must hold no control character
      expect(message, root).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      expect(message, root).toMatch(/\\u009b2J|\\u001b\]0;pwned\\u0007/);
    }
  });
});

describe('Retry-After', () => {
  it('is read as seconds or an HTTP-date, and nothing else', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:02 GMT', now)).toBe(2000);
    // Date.parse reads these as days in 2001: a retry at once, without any backoff.
    for (const odd of ['1.5', '-1', '5 seconds', '']) expect(parseRetryAfter(odd, now), odd).toBeUndefined();
  });
});
