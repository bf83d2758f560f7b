/**
 * The files that make a static host answer like the API (docs/snapshot-format.md#host-files): `_headers` (Cloudflare
 * Pages, Netlify), `_redirects` (slash-less record URLs answer 200 instead of 308), `serve.json` (`npx serve`), and
 * `404.html` with a JSON:API error document.
 */
import { MEDIA_TYPE } from '../jsonapi/media-type.js';
import { htmlSafeJson } from '../json/html-safe.js';
import type { TreeWriter } from '../store/writer.js';
import type { Layout } from './layout.js';

/**
 * Sent with every file: a browser never second-guesses the media type a host gives, so no file of the snapshot is
 * taken for a page or a script it is not (docs/snapshot-format.md#json-that-is-never-markup).
 */
export const NO_SNIFF: readonly [string, string] = ['X-Content-Type-Options', 'nosniff'];

const JSONAPI_HEADERS: ReadonlyArray<readonly [string, string]> = [
  // Header names exactly `Content-Type`: serve sends two headers for a differently spelled one.
  ['Content-Type', MEDIA_TYPE],
  ['Vary', 'Accept'],
];

export function errorDocument(status: number, title: string, detail: string): string {
  return htmlSafeJson(JSON.stringify({ errors: [{ status: String(status), title, detail }] }));
}

function errorDocumentFile(): string {
  return errorDocument(404, 'Not Found', 'No document of this snapshot answers this URL.');
}

/** The root path without its trailing slash, e.g. `/sms/cv/api/v1`. */
function bareRoot(layout: Layout): string {
  return layout.rootPath().replace(/\/$/, '');
}

export function headersFile(layout: Layout): string {
  const block = (pattern: string, headers = JSONAPI_HEADERS) =>
    [pattern, ...headers.map(([k, v]) => `  ${k}: ${v}`)].join('\n');
  const root = bareRoot(layout);
  // A `/*` rule does not match the bare prefix, so the bare root gets its own entry.
  const patterns = root === '' ? ['/*'] : [`${root}/*`, root];
  // One rule sends nosniff with every file, the catalogue's included (they keep the host's media types).
  const blocks = [...patterns, '/404.html'].map((pattern) => block(pattern));
  return `${[...blocks, block('/*', [NO_SNIFF])].join('\n')}\n`;
}

function redirectsFile(layout: Layout): string {
  const root = bareRoot(layout);
  const rules = [
    [root === '' ? '/' : root, `${root}/`],
    [`${root}/:t`, `${root}/:t/`],
    [`${root}/:t/:id`, `${root}/:t/:id/`],
    [`${root}/:t/:id/:rel`, `${root}/:t/:id/:rel/`],
  ].filter(([from, to]) => from !== to);
  return `${rules.map(([from, to]) => `${from} ${to} 200`).join('\n')}\n`;
}

/**
 * serve-handler resolves a directory to its index.html only through `cleanUrls` (with it off, every URL ending in
 * `/` answers 404), and with it on `/units/3` answers `units/3/index.html` with a 200, no redirect; it redirects
 * only paths ending in `.html` or `/index`, which no API URL of this service does (ids are numbers).
 * `trailingSlash` stays unset: true would redirect the extensionless relationship files. No `etag` member: the
 * `serve` command line refuses a serve.json that has one ("must NOT have additional properties"), and sends
 * ETags by default anyway.
 */
function serveJson(layout: Layout): string {
  const root = bareRoot(layout).replace(/^\//, '');
  const headers = JSONAPI_HEADERS.map(([key, value]) => ({ key, value }));
  const noSniff = [{ key: NO_SNIFF[0], value: NO_SNIFF[1] }];
  const config = {
    cleanUrls: true,
    directoryListing: false,
    headers: [
      ...(root === ''
        ? [{ source: '**', headers }]
        : [
            { source: `${root}/**`, headers },
            { source: root, headers },
          ]),
      { source: '404.html', headers },
      { source: '**', headers: noSniff },
    ],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** Writes the four host files of a tree served at a host's root (a crawl's, and `catalogue`'s copy of an older one). */
export function writeHostFiles(writer: TreeWriter, layout: Layout): void {
  writer.write('_headers', headersFile(layout));
  writer.write('_redirects', redirectsFile(layout));
  writer.write('serve.json', serveJson(layout));
  writer.write('404.html', errorDocumentFile());
}

/** Whether `file` is one of the host files, which `writeHostFiles` writes. */
export function isHostFile(file: string): boolean {
  return file === '_headers' || file === '_redirects' || file === 'serve.json' || file === '404.html';
}
