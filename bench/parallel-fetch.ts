/**
 * The floor for a mirror written in Node: the URLs fetched `concurrency` at a time on undici's dispatch API (as the
 * crawl fetches), each body decompressed and written to its file in the snapshot's tree (the files curl writes), and
 * nothing parsed, checked or recorded. Its wall time against curl's is what being a Node client costs on the machine;
 * the crawl's against it is what the crawl's own work costs.
 * Usage: node parallel-fetch.js <list-file> <out-dir> <concurrency>, where each line of the list is
 * `<url>\t<file>`. The bench counts the files it finds written.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Agent } from 'undici';

const [listFile, outDir, concurrencyText] = process.argv.slice(2);
if (listFile === undefined || outDir === undefined || concurrencyText === undefined)
  throw new Error('usage: parallel-fetch <list-file> <out-dir> <concurrency>');
const concurrency = Number(concurrencyText);
const entries = readFileSync(listFile, 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => line.split('\t') as [string, string]);
const agent = new Agent({ connections: concurrency });
const headers = { accept: 'application/vnd.api+json', 'accept-encoding': 'gzip, br' };

function get(url: string): Promise<{ status: number; encoding: string | undefined; body: Buffer }> {
  const { origin } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    let encoding: string | undefined;
    agent.dispatch(
      { origin, path: url.slice(origin.length), method: 'GET', headers },
      {
        // undici takes a handler for its current dispatch API by this method, even when it does nothing.
        onRequestStart() {},
        onResponseStart(_controller, statusCode, responseHeaders) {
          status = statusCode;
          const value = responseHeaders['content-encoding'];
          encoding = Array.isArray(value) ? value.join(', ') : value;
        },
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          resolve({ status, encoding, body: Buffer.concat(chunks) });
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}

function decode(body: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'br') return zlib.brotliDecompressSync(body);
  if (encoding === 'gzip') return zlib.gunzipSync(body);
  return body;
}

const made = new Set<string>();
let next = 0;

async function lane(): Promise<void> {
  while (next < entries.length) {
    const [url, file] = entries[next++]!;
    const { status, encoding, body } = await get(url);
    if (status !== 200) throw new Error(`${url} answered HTTP ${status}`);
    const target = path.join(outDir!, file);
    const dir = path.dirname(target);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(target, decode(body, encoding));
  }
}

await Promise.all(Array.from({ length: concurrency }, lane));
await agent.close();
