/** Reading snapshots in tests: file listings, documents, and links normalised back to canonical source URLs. */
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { request } from 'undici';
import { visitLinks } from '../../src/jsonapi/links.js';
import { locate } from '../../src/url/api-location.js';
import { canonicalUrl } from '../../src/url/canonical-url.js';
import type { Layout } from '../../src/format/layout.js';

export async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(path.join(dir, entry.name), rel)));
    else out.push(rel);
  }
  return out.sort();
}

/** Every file of a tree with its SHA-256, for byte-for-byte comparisons of two trees. */
export async function treeHashes(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const file of await listFiles(dir)) {
    result[file] = createHash('sha256')
      .update(await readFile(path.join(dir, file)))
      .digest('hex');
  }
  return result;
}

export async function readJson(dir: string, file: string): Promise<unknown> {
  return JSON.parse(await readFile(path.join(dir, ...file.split('/')), 'utf8'));
}

/** GETs a URL as a JSON:API client would; returns status, headers and parsed JSON (or null). */
export async function getJson(url: string, headers: Record<string, string> = {}) {
  const response = await request(url, { headers: { accept: 'application/vnd.api+json', ...headers } });
  const text = await response.body.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON: null.
  }
  return { status: response.statusCode, headers: response.headers, json, text };
}

/**
 * Replaces every link of `document` with the canonical source URL it stands for, so that a source document and a
 * snapshot document (whose links were rewritten) can be compared with toEqual. `fromSnapshot` links are
 * root-relative paths of the snapshot.
 */
export function normaliseLinks(document: unknown, documentUrl: string, layout: Layout, fromSnapshot: boolean): unknown {
  const copy = structuredClone(document);
  const isRoot = locate(documentUrl, layout.root).kind === 'root';
  visitLinks(copy, isRoot, (link) => {
    if (fromSnapshot && link.startsWith('/')) return layout.sourceUrlOfServedPath(link);
    try {
      return canonicalUrl(link, documentUrl);
    } catch {
      return link;
    }
  });
  return copy;
}

/**
 * Hashes of a tree as two crawls of one vocabulary on different ports must agree on: everything but `_cv-snapshot/`
 * (the manifest names the source), with the source's origin in the catalogue's pages (which show each record's URI)
 * replaced by a placeholder.
 */
export async function sourceFreeHashes(dir: string, origin: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const file of await listFiles(dir)) {
    if (file.startsWith('_cv-snapshot/')) continue;
    let bytes = await readFile(path.join(dir, file));
    if (file === 'index.html' || file.startsWith('_catalogue/')) {
      bytes = Buffer.from(bytes.toString('utf8').split(origin).join('http://source.invalid'));
    }
    result[file] = createHash('sha256').update(bytes).digest('hex');
  }
  return result;
}
