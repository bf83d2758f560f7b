/**
 * The baseline a hand-written script gives: one request at a time over a list of URLs, each body written to a file.
 * Usage: node sequential-fetch.js <url-list-file> <out-dir>. Prints the number of files written.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [listFile, outDir] = process.argv.slice(2);
if (listFile === undefined || outDir === undefined)
  throw new Error('usage: sequential-fetch <url-list-file> <out-dir>');
const urls = readFileSync(listFile, 'utf8')
  .split('\n')
  .filter((line) => line !== '');
let written = 0;
for (const url of urls) {
  const response = await fetch(url, { headers: { accept: 'application/vnd.api+json' } });
  if (response.status !== 200) throw new Error(`${url} answered HTTP ${response.status}`);
  writeFileSync(path.join(outDir, `f${written}`), Buffer.from(await response.arrayBuffer()));
  written += 1;
}
process.stdout.write(`${written}\n`);
