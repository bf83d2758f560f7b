/**
 * `cv-snapshot serve` on a tree where files the snapshot lists were replaced by things that are not regular files:
 * a named pipe (which, opened for reading, waits for a writer forever and holds one of libuv's four
 * pool threads), a symbolic link to a pipe, a link to /dev/zero, a socket, a directory named like the file, and a
 * directory that is a link leading out of the tree. Each is refused at once with a JSON:API error, however many
 * requests ask for it; every other file still answers; and SIGTERM and SIGINT still end the command.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { get } from '../sample-api/http.js';
import { startMirror, type Mirror } from './fixture.js';

const SECRET = 'TOP-SECRET-outside-the-snapshot';
/** More requests per planted file than libuv's pool has threads. */
const REQUESTS = 6;

let mirror: Mirror;
let socketServer: net.Server;
/** Record id → what was planted at its stored file. */
const planted = new Map<string, string>();
/** Records left alone, none requested before the planted ones. */
let untouched: string[] = [];

function recordFile(id: string): string {
  return path.join(mirror.dir, 'sms', 'cv', 'api', 'v1', 'units', id, 'index.html');
}

beforeAll(async () => {
  mirror = await startMirror({ records: 12, pageSize: 5, seed: 3 }, { catalogue: 'none' });
  const list = JSON.parse((await get(`${mirror.serve.url}units/?page[size]=100`)).text) as {
    data: Array<{ id: string }>;
  };
  const ids = list.data.map((record) => record.id);
  expect(ids.length).toBeGreaterThanOrEqual(9);
  const [fifo, linkToFifo, linkToZero, socket, directory, escaping, ...rest] = ids as [
    string,
    string,
    string,
    string,
    string,
    string,
    ...string[],
  ];
  untouched = rest;
  const outside = path.join(mirror.base, 'outside');
  await mkdir(outside);

  await rm(recordFile(fifo));
  execFileSync('mkfifo', [recordFile(fifo)]);
  planted.set(fifo, 'a named pipe');

  execFileSync('mkfifo', [path.join(outside, 'pipe')]);
  await rm(recordFile(linkToFifo));
  await symlink(path.join(outside, 'pipe'), recordFile(linkToFifo));
  planted.set(linkToFifo, 'a symbolic link');

  await rm(recordFile(linkToZero));
  await symlink('/dev/zero', recordFile(linkToZero));
  planted.set(linkToZero, 'a symbolic link');

  await rm(recordFile(socket));
  socketServer = net.createServer();
  await new Promise<void>((resolve) => socketServer.listen(recordFile(socket), resolve));
  planted.set(socket, 'a socket');

  await rm(recordFile(directory));
  await mkdir(recordFile(directory));
  planted.set(directory, 'a directory');

  // The record's directory moved out of the tree, a link left in its place: its files are the snapshot's, by name.
  const recordDir = path.dirname(recordFile(escaping));
  await rename(recordDir, path.join(outside, escaping));
  await writeFile(path.join(outside, escaping, 'index.html'), JSON.stringify({ data: SECRET }));
  await symlink(path.join(outside, escaping), recordDir);
  planted.set(escaping, 'a symbolic link');

  // Read when serve starts (this test's server has started already; the command-line ones start after this).
  await rm(path.join(mirror.dir, '_headers'));
  execFileSync('mkfifo', [path.join(mirror.dir, '_headers')]);
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => socketServer.close(resolve));
  await mirror.close();
});

describe('files that are not regular files', () => {
  it('refuses each with a 403 JSON:API error, every time, and goes on answering every other file', async () => {
    const asked = [...planted.keys()].flatMap((id) =>
      Array.from({ length: REQUESTS }, () => ({ id, answer: get(`${mirror.serve.url}units/${id}/`) })),
    );
    for (const { id, answer } of asked) {
      const { status, headers, text } = await answer;
      expect(status, `units/${id}/`).toBe(403);
      expect(headers['content-type']).toBe('application/vnd.api+json');
      const error = (JSON.parse(text) as { errors: Array<{ status: string; detail: string }> }).errors[0]!;
      expect(error.status).toBe('403');
      expect(error.detail).toContain(`is ${planted.get(id)!}`);
      expect(error.detail).toContain('cv-snapshot verify');
      expect(text).not.toContain(SECRET);
    }
    // Files never read before (none is in the cache) still answer, as do queries over the collection.
    for (const id of untouched) {
      const answer = await get(`${mirror.serve.url}units/${id}/`);
      expect(answer.status, `units/${id}/`).toBe(200);
      expect(JSON.parse(answer.text).data.id).toBe(id);
    }
    expect((await get(`${mirror.serve.url}units/?sort=-term&page[size]=3`)).status).toBe(200);
  });

  it('starts when _headers is a pipe, and ends on SIGTERM and on SIGINT after such requests, exit 0', async () => {
    const [fifo] = planted.keys();
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const { child, firstLine } = await startCli(['serve', mirror.dir, '--port', '0', '--quiet']);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        const answers = await Promise.all(Array.from({ length: REQUESTS }, () => get(`${firstLine}units/${fifo!}/`)));
        expect(answers.map((answer) => answer.status)).toEqual(Array(REQUESTS).fill(403));
        expect((await get(`${firstLine}units/${untouched[0]!}/`)).status).toBe(200);
        child.kill(signal);
        expect(await exited, signal).toBe(0);
      } finally {
        child.kill('SIGKILL');
      }
    }
  });
});

describe('a snapshot whose own files are pipes', () => {
  it('is refused with a sentence when SHA256SUMS or the manifest is a pipe, never a wait', async () => {
    for (const pipe of ['SHA256SUMS', 'manifest.json']) {
      const dir = await tempDir();
      await mkdir(path.join(dir, '_cv-snapshot'));
      await writeFile(path.join(dir, '_cv-snapshot', 'SHA256SUMS'), '');
      await writeFile(path.join(dir, '_cv-snapshot', 'manifest.json'), '{}');
      await rm(path.join(dir, '_cv-snapshot', pipe));
      execFileSync('mkfifo', [path.join(dir, '_cv-snapshot', pipe)]);
      const result = await runCli(['serve', dir, '--port', '0']);
      expect(result.code, pipe).toBe(1);
      // The manifest is read as every command reads it, and named as they name it.
      const refused =
        pipe === 'manifest.json'
          ? `${dir}: _cv-snapshot/manifest.json cannot be read: `
          : `${dir} is not a snapshot that can be served (`;
      expect(result.stderr).toContain(refused);
      expect(result.stderr).toContain(`_cv-snapshot/${pipe} is a named pipe`);
    }
  });
});
