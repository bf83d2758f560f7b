/**
 * A small snapshot-like tree written by hand (not by crawl, so these tests do not depend on the crawler): the files
 * a snapshot has at its top, nested API documents with non-ASCII names, a path too long for ustar's name field, a
 * segment too long for any ustar field, and a SHA256SUMS computed here with node:crypto.
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';

const CREATED_AT = '2024-05-01T12:34:56.000Z';
/** The same time as tar -tv prints it in UTC. */
export const CREATED_AT_TAR = '2024-05-01 12:34';

const API = 'sms/cv/api/v1';
const doc = (self: string): string => `${JSON.stringify({ data: [], links: { self } })}\n`;

/** Relative path → content; every file of the fixture except SHA256SUMS. */
export const FIXTURE_FILES: Record<string, string> = {
  _headers: '/sms/cv/api/v1/*\n  Content-Type: application/vnd.api+json\n',
  _redirects: '/sms/cv/api/v1 /sms/cv/api/v1/ 200\n',
  'serve.json': '{"cleanUrls":false}\n',
  '404.html': '{"errors":[{"status":"404"}]}\n',
  '_cv-snapshot/manifest.json': `${JSON.stringify(
    { format: 'cv-snapshot', formatVersion: 1, createdAt: CREATED_AT },
    null,
    2,
  )}\n`,
  '_cv-snapshot/report.json': '{"findings":[]}\n',
  [`${API}/index.html`]: doc('/sms/cv/api/v1/'),
  [`${API}/units/index.html`]: doc('/sms/cv/api/v1/units/'),
  [`${API}/units/1/index.html`]: doc('/sms/cv/api/v1/units/1/'),
  [`${API}/units/1/relationships/unit_type`]: doc('/sms/cv/api/v1/units/1/relationships/unit_type'),
  [`${API}/units/page/2/index.html`]: doc('/sms/cv/api/v1/units/page/2/'),
  // Turkish dotted/dotless I: a locale-aware sort or case mapping under LANG=tr_TR would move these.
  [`${API}/units/İstanbul/index.html`]: doc('İstanbul'),
  [`${API}/units/ılık/index.html`]: doc('ılık'),
  [`${API}/units/Ökologie/index.html`]: doc('Ökologie'),
  // U+FF5A and U+1F600 sort one way as UTF-16 code units (JS string <) and the other way as UTF-8 bytes.
  [`${API}/units/ｚ/index.html`]: doc('fullwidth z'),
  [`${API}/units/😀/index.html`]: doc('emoji'),
  [`${API}/units-b/index.html`]: doc('units-b sorts between units and units/ in byte order'),
  // Over pack's and extract's whole-file limit (256 KiB), so both stream it: a complete collection is this big.
  [`${API}/manufacturers/index.html`]: `${JSON.stringify({
    data: Array.from({ length: 4000 }, (_, i) => ({
      type: 'Manufacturer',
      id: String(i),
      attributes: { term: `Maker ${i * 7919}` },
    })),
  })}\n`,
  // 100+ bytes in total: needs ustar's prefix field.
  [`${API}/measuredquantities/1/relationships/${'sampling_media_and_more_'.repeat(4)}/index.html`]: doc('long'),
  // A 180-byte segment (the layout allows 200): fits no ustar field, so pack writes a path-only pax header.
  [`${API}/manufacturers/${'ä'.repeat(90)}/index.html`]: doc('very long segment'),
};

export const SUMS_FILE = '_cv-snapshot/SHA256SUMS';

function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

export interface WriteOptions {
  /** Create files in reverse order, so directories list their entries in another order. */
  reverse?: boolean;
  /** Give files and directories unusual modes and scattered mtimes. */
  scramble?: boolean;
}

/** Writes the fixture into `root` (which may exist) and returns `root`. */
export async function writeSnapshot(root: string, options: WriteOptions = {}): Promise<string> {
  const files = Object.entries(FIXTURE_FILES);
  const sums = [...files]
    .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    .map(([file, text]) => `${sha256(text)}  ${file}\n`)
    .join('');
  files.push([SUMS_FILE, sums]);
  if (options.reverse) files.reverse();
  let n = 0;
  for (const [file, text] of files) {
    const target = path.join(root, ...file.split('/'));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text);
    if (options.scramble) {
      n++;
      await chmod(target, n % 2 === 0 ? 0o600 : 0o640);
      await utimes(target, 1_000_000 + n * 7919, 2_000_000_000 - n * 104_729);
    }
  }
  if (options.scramble) {
    for (const dir of (await listTree(root)).filter((e) => e.kind === 'dir')) {
      const target = path.join(root, ...dir.rel.split('/'));
      await chmod(target, 0o700);
      await utimes(target, 1_500_000_000, 1_500_000_000);
    }
  }
  return root;
}

export interface TreeEntry {
  rel: string;
  kind: 'dir' | 'file';
  sha256?: string;
}

/** Every directory and file below `root`, sorted, with each file's SHA-256: two trees are equal when these are. */
export async function listTree(root: string, rel = ''): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  for (const entry of await readdir(rel === '' ? root : path.join(root, rel), { withFileTypes: true })) {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      out.push({ rel: child, kind: 'dir' }, ...(await listTree(root, child)));
    } else {
      out.push({ rel: child, kind: 'file', sha256: sha256(await readFile(path.join(root, child))) });
    }
  }
  return out.sort((a, b) => Buffer.compare(Buffer.from(a.rel), Buffer.from(b.rel)));
}
