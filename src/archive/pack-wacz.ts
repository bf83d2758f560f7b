/**
 * `pack --format wacz` (docs/capture.md#wacz): the capture of a snapshot crawled with `--warc`, as a WACZ 1.1.1 that
 * ReplayWeb.page and pywb open: `archive/` with the capture files, `indexes/index.cdxj`, `pages/pages.jsonl`,
 * `datapackage.json` and `datapackage-digest.json`, in a ZIP of stored entries (zip-format.ts). Its bytes depend only
 * on the snapshot: entries in a fixed order, every time the manifest's `createdAt` (SOURCE_DATE_EPOCH when the crawl
 * had it), page ids from their URLs. Each capture file is checked against SHA256SUMS as it is read.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type * as z from 'zod';
import { CAPTURE_FILE } from '../capture/capture-file.js';
import { indexRecord, type IndexedRecord } from '../capture/cdxj.js';
import { readWarc, WarcFormatError } from '../capture/warc-reader.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { ArchiveError, StoppedError, throwIfStopped } from '../util/errors.js';
import { writeFully } from '../util/write-fully.js';
import { Layout } from '../format/layout.js';
import { META_DIR, SUMS_PATH } from '../store/sums.js';
import { manifestSchema } from '../format/manifest.js';
import { NotASnapshotError, readManifestWith } from '../format/read-manifest.js';
import { readSums } from '../format/read-sums.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { removeOnExit } from './exit-cleanup.js';
import { checkOutput, sidecarText, tempPathFor } from './pack-output.js';
import type { PackOptions, PackResult } from './pack.js';
import { dosDateTime, ZipLimitError, ZipWriter } from './zip-format.js';

const WACZ_VERSION = '1.1.1';
/** The largest record read: a response of the crawl's largest --max-bytes with room for its head. */
const MAX_RECORD_BYTES = 1 << 30;
const CHUNK = 1 << 20;

const WACZ_MANIFEST = manifestSchema.pick({ createdAt: true, source: true, collections: true, options: true });

interface Resource {
  name: string;
  path: string;
  bytes: number;
  sha256: string;
  crc32: number;
}

function resourceOf(zipPath: string, bytes: Buffer): Resource & { content: Buffer } {
  return {
    name: path.posix.basename(zipPath),
    path: zipPath,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    crc32: crc32(bytes),
    content: bytes,
  };
}

/** The capture files SHA256SUMS lists, in the order they were written, with their checksums. */
async function listedCaptures(root: string, name: string, signal: AbortSignal | undefined) {
  const reading = await readSums(root, (file) => file.startsWith(`${META_DIR}/`), { signal }).catch(
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new NotASnapshotError(`${name} has no ${SUMS_PATH}, so it is not a complete snapshot. Crawl it again.`);
      }
      throw error;
    },
  );
  const captures: Array<{ file: string; number: number; sha256: string }> = [];
  for (const [file, sha256] of reading.sums) {
    const match = CAPTURE_FILE.exec(file.slice(META_DIR.length + 1));
    if (match !== null && !file.slice(META_DIR.length + 1).includes('/')) {
      captures.push({ file, number: Number(match[1]), sha256 });
    }
  }
  return captures.sort((a, b) => a.number - b.number);
}

/** A capture file's size, CRC-32 and SHA-256, read once; refused when it is not what SHA256SUMS lists. */
function checkedFile(file: string, rel: string, sha256: string): { size: number; crc32: number } {
  const fd = openSync(file, 'r');
  try {
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(CHUNK);
    let crc = 0;
    let size = 0;
    for (let got = readSync(fd, chunk, 0, CHUNK, null); got > 0; got = readSync(fd, chunk, 0, CHUNK, null)) {
      hash.update(chunk.subarray(0, got));
      crc = crc32(chunk.subarray(0, got), crc);
      size += got;
    }
    if (hash.digest('hex') !== sha256) {
      throw new ArchiveError(
        `${rel} does not match its checksum in ${SUMS_PATH}: it was changed after the crawl. pack never archives a ` +
          'changed snapshot: run cv-snapshot verify on it.',
      );
    }
    return { size, crc32: crc };
  } finally {
    closeSync(fd);
  }
}

/** The index lines of every response record, sorted, and the last 200 answer of each URL (for the pages). */
function indexCaptures(root: string, files: readonly string[]) {
  const lines: string[] = [];
  const answered = new Map<string, IndexedRecord>();
  for (const rel of files) {
    const name = path.posix.basename(rel);
    try {
      for (const entry of readWarc(path.join(root, ...rel.split('/')), MAX_RECORD_BYTES)) {
        const indexed = indexRecord(entry, name);
        if (indexed === null) continue;
        lines.push(indexed.line);
        if (indexed.status === '200') answered.set(indexed.url, indexed);
      }
    } catch (error) {
      if (!(error instanceof WarcFormatError)) throw error;
      throw new ArchiveError(`${rel} cannot be read as a capture: ${error.message} Run cv-snapshot verify on it.`);
    }
  }
  return { index: lines.sort(byCodeUnits), answered };
}

/** pages.jsonl: the root index and each collection's first page, each with the time it was captured. */
function pagesText(
  manifest: { source: { root: string }; collections: Record<string, unknown> },
  answered: ReadonlyMap<string, IndexedRecord>,
): string {
  const layout = new Layout(manifest.source.root);
  const pages = [{ url: manifest.source.root, title: 'API root' }];
  for (const collection of Object.keys(manifest.collections).sort(byCodeUnits)) {
    pages.push({ url: layout.collectionUrl(collection), title: collection });
  }
  let text = `${JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages' })}\n`;
  for (const { url, title } of pages) {
    const record = answered.get(url);
    if (record === undefined) continue;
    const id = createHash('sha256').update(url).digest('hex').slice(0, 32);
    text += `${JSON.stringify({ id, url, ts: record.date, title })}\n`;
  }
  return text;
}

export async function packWacz(dir: string, options: PackOptions = {}): Promise<PackResult> {
  const { signal } = options;
  let root: string;
  try {
    root = realpathSync(dir);
    if (!statSync(root).isDirectory()) throw new Error('not a directory');
  } catch {
    throw new NotASnapshotError(`${dir} is not a snapshot directory; give the directory that crawl wrote (--out).`);
  }
  const target = path.resolve(options.output ?? `${path.resolve(dir)}.wacz`);
  const manifest = readManifestWith(root, dir, WACZ_MANIFEST);
  await checkOutput(target, root, options.force === true);
  const captures = await listedCaptures(root, dir, signal);
  if (captures.length === 0 || manifest.options.warc !== true) {
    throw new ArchiveError(
      `${dir} holds no capture: a WACZ packs the WARC files a crawl with --warc records. Crawl again with --warc ` +
        '(or pack it as a .tar.gz, without --format wacz).',
    );
  }
  const checked = captures.map((capture) => ({
    ...capture,
    ...checkedFile(path.join(root, ...capture.file.split('/')), capture.file, capture.sha256),
  }));
  throwIfStopped(signal);
  const { index, answered } = indexCaptures(
    root,
    captures.map(({ file }) => file),
  );
  throwIfStopped(signal);
  const entries = smallEntries(manifest, checked, index, answered);
  const temp = tempPathFor(target);
  const tempSidecar = tempPathFor(`${target}.sha256`);
  const forget = [removeOnExit(temp), removeOnExit(tempSidecar)];
  const fd = openSync(temp, 'wx');
  const archiveHash = createHash('sha256');
  let bytes = 0;
  try {
    const zip = new ZipWriter(
      (chunk) => {
        archiveHash.update(chunk);
        bytes += chunk.length;
        writeFully(fd, chunk);
      },
      dosDateTime(new Date(manifest.createdAt)),
    );
    for (const capture of checked) {
      zip.begin({ name: `archive/${path.posix.basename(capture.file)}`, size: capture.size, crc32: capture.crc32 });
      copyInto(zip, path.join(root, ...capture.file.split('/')), capture);
      throwIfStopped(signal);
    }
    for (const resource of entries) {
      zip.begin({ name: resource.path, size: resource.bytes, crc32: resource.crc32 });
      zip.data(resource.content);
    }
    zip.finish();
    closeSync(fd);
    const sha256 = archiveHash.digest('hex');
    await writeFile(tempSidecar, sidecarText(sha256, target), { flag: 'wx' });
    throwIfStopped(signal);
    await rename(temp, target);
    await rename(tempSidecar, `${target}.sha256`);
    return { output: target, sha256, bytes, leftOut: [], partial: null };
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // Closed already.
    }
    await Promise.all([rm(temp, { force: true }), rm(tempSidecar, { force: true })]);
    if (error instanceof ArchiveError || error instanceof StoppedError) throw error;
    if (error instanceof ZipLimitError) throw new ArchiveError(`${target} cannot be written: ${error.message}.`);
    throw new ArchiveError(
      `${target} could not be written: ${(error as Error).message}. Check that its directory is writable.`,
    );
  } finally {
    for (const f of forget) f();
  }
}

/**
 * The WACZ's entries after its capture files: the index, the pages, and the data package that lists them all with
 * its digest.
 */
function smallEntries(
  manifest: z.infer<typeof WACZ_MANIFEST>,
  captures: ReadonlyArray<{ file: string; size: number; sha256: string; crc32: number }>,
  index: readonly string[],
  answered: ReadonlyMap<string, IndexedRecord>,
): Array<Resource & { content: Buffer }> {
  const small = [
    resourceOf('indexes/index.cdxj', Buffer.from(index.map((line) => `${line}\n`).join(''), 'utf8')),
    resourceOf('pages/pages.jsonl', Buffer.from(pagesText(manifest, answered), 'utf8')),
  ];
  const resources: Resource[] = [
    ...captures.map((capture) => {
      const name = path.posix.basename(capture.file);
      return { name, path: `archive/${name}`, bytes: capture.size, sha256: capture.sha256, crc32: capture.crc32 };
    }),
    ...small,
  ];
  const datapackage = resourceOf(
    'datapackage.json',
    Buffer.from(
      `${JSON.stringify(
        {
          profile: 'data-package',
          wacz_version: WACZ_VERSION,
          title: `Capture of ${manifest.source.root}`,
          created: manifest.createdAt,
          software: `${TOOL_NAME}/${TOOL_VERSION}`,
          mainPageUrl: manifest.source.root,
          ...(answered.has(manifest.source.root) ? { mainPageDate: answered.get(manifest.source.root)!.date } : {}),
          resources: resources.map((resource) => ({
            name: resource.name,
            path: resource.path,
            hash: `sha256:${resource.sha256}`,
            bytes: resource.bytes,
          })),
        },
        null,
        2,
      )}\n`,
    ),
  );
  const digest = resourceOf(
    'datapackage-digest.json',
    Buffer.from(
      `${JSON.stringify({ path: 'datapackage.json', hash: `sha256:${datapackage.sha256}` }, null, 2)}\n`,
      'utf8',
    ),
  );

  return [...small, datapackage, digest];
}

/** Copies a capture file into the ZIP; it must still be the file that was checked and indexed. */
function copyInto(
  zip: ZipWriter,
  file: string,
  { size, sha256, file: rel }: { size: number; sha256: string; file: string },
): void {
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(CHUNK);
    const hash = createHash('sha256');
    let copied = 0;
    while (copied < size) {
      const got = readSync(fd, chunk, 0, Math.min(CHUNK, size - copied), copied);
      if (got === 0) break;
      const bytes = Buffer.from(chunk.subarray(0, got));
      hash.update(bytes);
      zip.data(bytes);
      copied += got;
    }
    if (copied !== size || readSync(fd, chunk, 0, 1, size) !== 0 || hash.digest('hex') !== sha256) {
      throw new ArchiveError(`${rel} changed while pack read it; run pack again.`);
    }
  } finally {
    closeSync(fd);
  }
}
