/**
 * Real snapshots of a small vocabulary for tests of verify, diff, export and pack: the suite's source
 * (tiny-source.ts) serving the given collections, two records to a page unless told otherwise, each record with a
 * term and, when given, a number attribute written exactly as given (`1e400`, `18446744073709551617`), crawled with
 * the suite's options (crawl.ts). Paths in `failing` answer 500, so a crawl with `allowPartial` misses them. A crawl
 * of it takes milliseconds. Also: a copy of a snapshot a test may change, and a file rewritten as a crawl would.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SnapshotOptions } from '../../src/pipeline/snapshot-options.js';
import { crawlForTest } from './crawl.js';
import { startTinySource, type TinyRecord } from './tiny-source.js';

export { records, type TinyRecord } from './tiny-source.js';

export interface TinyVocabulary {
  collections: Record<string, TinyRecord[]>;
  pageSize?: number;
  /** Paths below the root (such as `units/?page[number]=2`) that answer 500. */
  failing?: string[];
}

/**
 * A snapshot of `vocabulary`, crawled in-process into `out` (a link to its generation, as --out is), at a fixed
 * time so that two snapshots of one state are the same bytes.
 */
export async function snapshotOf(
  vocabulary: TinyVocabulary,
  out: string,
  options: Partial<SnapshotOptions> = {},
): Promise<string> {
  const source = await startTinySource({ pageSize: 2, ...vocabulary });
  try {
    await crawlForTest(source.root, out, options);
  } finally {
    await source.close();
  }
  return out;
}

/**
 * A copy of the snapshot at `from` (links are followed, as `cp -RL` does) that a test may change. Each directory's
 * entries are copied at once: fs.cp goes one file at a time, several seconds for a snapshot of the sample API.
 */
export async function copySnapshot(from: string, to: string): Promise<string> {
  await mkdir(to);
  await Promise.all(
    (await readdir(from)).map(async (name) => {
      const source = path.join(from, name);
      if ((await stat(source)).isDirectory()) await copySnapshot(source, path.join(to, name));
      else await copyFile(source, path.join(to, name));
    }),
  );
  return to;
}

/** Writes `text` to the snapshot file `rel`, and, with `sums`, its new checksum to SHA256SUMS, as a crawl would. */
export async function rewriteFile(dir: string, rel: string, text: string | Buffer, sums: boolean): Promise<void> {
  const file = path.join(dir, ...rel.split('/'));
  const before = await readFile(file);
  await writeFile(file, text);
  if (!sums) return;
  const hash = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
  const sumsFile = path.join(dir, '_cv-snapshot', 'SHA256SUMS');
  const listed = await readFile(sumsFile, 'utf8');
  await writeFile(sumsFile, listed.replace(`${hash(before)}  ${rel}\n`, `${hash(text)}  ${rel}\n`));
}
