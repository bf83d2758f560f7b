/**
 * `cv-snapshot serve` is read-only and stays inside the snapshot: methods, HEAD and OPTIONS, CORS,
 * path traversal raw and encoded, files that are not the snapshot's, timeouts, and the command line.
 */
import { once } from 'node:events';
import net from 'node:net';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe } from '../../src/serve/index.js';
import { runMain, startCli } from '../helpers/cli.js';
import { treeHashes } from '../helpers/snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';
import { get } from '../sample-api/http.js';
import { rawRequest, startMirror, type Mirror } from './fixture.js';

const SECRET = 'TOP-SECRET-outside-the-snapshot';
let mirror: Mirror;
let root: string;

beforeAll(async () => {
  mirror = await startMirror({ records: 4, pageSize: 3, seed: 2 }, {}, { cors: true });
  root = mirror.serve.url;
  // Things beside and inside the snapshot that are not its files.
  await writeFile(path.join(mirror.base, 'secret.txt'), SECRET);
  await writeFile(path.join(mirror.dir, 'stray.txt'), SECRET);
  await symlink(path.join(mirror.base, 'secret.txt'), path.join(mirror.dir, 'sms', 'link.txt'));
}, 60_000);
afterAll(async () => {
  await mirror.close();
});

describe('methods', () => {
  it('answers HEAD with the headers of GET and no body', async () => {
    const [head, got] = [await get(`${root}units/`, { method: 'HEAD' }), await get(`${root}units/`)];
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-type']).toBe('application/vnd.api+json');
    expect(head.headers['content-length']).toBe(got.headers['content-length']);
    expect(head.headers.etag).toBe(got.headers.etag);
  });

  it('answers OPTIONS with Allow, and the CORS preflight with --cors', async () => {
    const options = await get(`${root}units/`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe('GET, HEAD, OPTIONS');
    const preflight = await get(`${root}units/?page[size]=10000`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://sms.example.org',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'accept',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(preflight.headers['access-control-allow-headers']).toBe('accept');
    expect((await get(`${root}units/`)).headers['access-control-allow-origin']).toBe('*');
  });

  it('answers 405 with a JSON:API error document to POST, PUT, PATCH and DELETE, and changes nothing', async () => {
    const before = await treeHashes(mirror.dir);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      for (const target of [`${root}units/`, `${root}units/1/`, `${root}../secret.txt`]) {
        const answer = await get(target, { method, headers: { 'content-type': 'application/vnd.api+json' } });
        expect(answer.status, `${method} ${target}`).toBe(405);
        expect(answer.headers.allow).toBe('GET, HEAD, OPTIONS');
        expect(answer.headers['content-type']).toBe('application/vnd.api+json');
        expect(JSON.parse(answer.text).errors[0]).toMatchObject({ status: '405' });
      }
    }
    expect(await treeHashes(mirror.dir)).toEqual(before);
  });

  it('answers 404 with a JSON:API error document for an unknown path', async () => {
    for (const target of [`${root}nope/`, `${root}units/999999/`, `${root}units/1/relationships/global_provenance/`]) {
      const answer = await get(target);
      expect(answer.status, target).toBe(404);
      expect(answer.headers['content-type']).toBe('application/vnd.api+json');
      expect(JSON.parse(answer.text).errors[0]).toMatchObject({ status: '404' });
    }
  });
});

describe('answers a client can read, for every error', () => {
  it('answers /404.html with 404 and the JSON:API error document, never 200', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const answer = await get(`${mirror.serve.origin}/404.html`, { method });
      expect(answer.status, method).toBe(404);
      expect(answer.headers['content-type']).toBe('application/vnd.api+json');
      const error = { errors: [{ status: '404', title: 'Not Found' }] };
      if (method === 'GET') expect(JSON.parse(answer.text)).toMatchObject(error);
    }
  });

  /** Sends raw bytes and returns the status line, headers and body the server wrote before closing. */
  function rawExchange(bytes: string): Promise<{ status: number; headers: string; body: string }> {
    const { hostname, port } = new URL(mirror.serve.origin);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => socket.end(bytes));
      let data = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (data += chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const end = data.indexOf('\r\n\r\n');
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
        resolve({ status, headers: data.slice(0, end), body: data.slice(end + 4) });
      });
    });
  }

  it('answers an over-long URL or header with 431 and a JSON:API error document, not a bare status line', async () => {
    const host = `Host: ${new URL(mirror.serve.origin).host}\r\n`;
    for (const request of [
      `GET /sms/cv/api/v1/units/?filter[term]=${'a'.repeat(20_000)} HTTP/1.1\r\n${host}\r\n`,
      `GET /sms/cv/api/v1/ HTTP/1.1\r\n${host}X-Long: ${'b'.repeat(20_000)}\r\n\r\n`,
    ]) {
      const answer = await rawExchange(request);
      expect(answer.status).toBe(431);
      expect(answer.headers).toMatch(/\r\nContent-Type: application\/vnd\.api\+json\r\n/i);
      const error = { errors: [{ status: '431', title: 'Request Header Fields Too Large' }] };
      expect(JSON.parse(answer.body)).toMatchObject(error);
    }
    const malformed = await rawExchange('NOT HTTP AT ALL\r\n\r\n');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body)).toMatchObject({ errors: [{ status: '400', title: 'Bad Request' }] });
    // The server goes on answering.
    expect((await get(`${root}units/`)).status).toBe(200);
  });
});

describe('path traversal and files that are not the snapshot\u2019s', () => {
  const attempts = [
    '/../secret.txt',
    '/sms/cv/api/v1/../../../../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E/%2e%2e/secret.txt',
    '/sms/cv/api/v1/units/..%2f..%2f..%2f..%2f..%2fsecret.txt',
    '/sms/cv/api/v1/units/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fsecret.txt',
    '/..\\..\\secret.txt',
    '/sms/cv/api/v1/units/%5c..%5c..%5csecret.txt',
    '/sms/cv/api/v1/units/%00/../../../secret.txt',
    '/sms%00/cv/api/v1/',
    '//../secret.txt',
    '/stray.txt',
    '/sms/link.txt',
    '/_headers',
    '/%2e%2e%2fsecret.txt',
    '/sms/cv/api/v1/units/%252e%252e/%252e%252e/secret.txt',
  ];

  it('refuses every attempt with 400 or 404, never with a file from outside', async () => {
    for (const target of attempts) {
      for (const method of ['GET', 'HEAD']) {
        const answer = await rawRequest(mirror.serve.origin, target, method);
        expect([400, 404], `${method} ${target}`).toContain(answer.status);
        expect(answer.text).not.toContain(SECRET);
      }
    }
  });
});

describe('timeouts', () => {
  it('closes a connection whose request headers never finish', async () => {
    const server = await startServe({ dir: mirror.dir, port: 0, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    try {
      const { port } = new URL(server.origin);
      const started = performance.now();
      const closed = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () =>
          socket.write('GET /sms/cv/api/v1/ HTTP/1.1\r\nHost: x\r\n'),
        );
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString()));
        socket.on('error', reject);
        socket.on('close', () => resolve(data));
      });
      expect(performance.now() - started).toBeLessThan(5000);
      expect(closed === '' || closed.startsWith('HTTP/1.1 408')).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('cv-snapshot serve on the command line', () => {
  it('prints the root URL first, logs each request, and stops cleanly on SIGINT', async () => {
    const { child, firstLine } = await startCli(['serve', mirror.dir, '--port', '0']);
    let output = '';
    // The request log goes to stderr: stdout carries the URL line that scripts read, and the catalogue's.
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sms\/cv\/api\/v1\/$/);
    const answer = await get(`${firstLine}units/?page[size]=2`);
    expect(answer.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // The log line may come after the answer: wait for it (or for the end of serve), not for a time.
    const logged = /GET \/sms\/cv\/api\/v1\/units\/\?page\[size\]=2 200 \d+B/;
    let ended = false;
    void exited.then(() => (ended = true));
    while (!logged.test(output) && !ended) await Promise.race([once(child.stderr!, 'data'), exited]);
    expect(output).toMatch(logged);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('logs nothing but the URL with --quiet', async () => {
    const { child, firstLine, rest } = await startCli(['serve', mirror.dir, '--port', '0', '--quiet']);
    let output = rest;
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    expect((await get(`${firstLine}units/`)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toBe(`Open the catalogue in a browser: ${new URL(firstLine).origin}/\n`);
  });

  it('says plainly when the directory is not a snapshot', async () => {
    const empty = await tempDir();
    await mkdir(path.join(empty, 'x'));
    const result = await runMain(['serve', empty, '--port', '0']);
    expect(result.code).toBe(1);
    // As every command names a folder that is not a snapshot: a sentence, not the system's error text.
    expect(result.stderr).toBe(
      `cv-snapshot serve: ${empty} is not a cv-snapshot snapshot: it has no _cv-snapshot/manifest.json. Give the ` +
        'directory that `cv-snapshot crawl --out` wrote, and check it with `cv-snapshot verify`.\n',
    );
  });

  it('says that serve needs a directory when given an archive, and how to extract it', async () => {
    const dir = await tempDir();
    const archive = path.join(dir, 'cv-2025-03.tar.gz');
    // What `pack` writes is a gzip file; serve looks no further than that.
    await writeFile(archive, gzipSync('not looked into'));
    const result = await runMain(['serve', archive, '--port', '0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${archive} is an archive; serve needs a directory.`);
    const target = path.join(dir, 'cv-2025-03');
    expect(result.stderr).toContain(`mkdir ${target} && tar -xzf ${archive} -C ${target}`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // A gzip file by its bytes, whatever its name.
    const renamed = path.join(dir, 'snapshot.bin');
    await writeFile(renamed, await readFile(archive));
    const byBytes = await runMain(['serve', renamed, '--port', '0']);
    expect(byBytes.stderr).toContain('is an archive; serve needs a directory');
  });

  it('names the port in use and what to try, exit 1, no stack trace', async () => {
    const { port } = new URL(mirror.serve.origin);
    const result = await runMain(['serve', mirror.dir, '--port', port]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `cv-snapshot serve: Port ${port} on 127.0.0.1 is in use by another program; ` +
        'give another port with --port, or --port 0 to pick a free one.\n',
    );
  });

  it('documents every option in --help', async () => {
    const result = await runMain(['serve', '--help']);
    for (const option of ['--port', '--host', '--cors', '--quiet']) expect(result.stdout).toContain(option);
  });
});
