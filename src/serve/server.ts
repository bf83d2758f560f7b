/**
 * `cv-snapshot serve`: a snapshot answered like the live service (docs/architecture.md#serve), on node:http and the
 * layout module.
 *
 * Why not serve-handler: the answers depend on the query (page[number], page[size], sort, filter, include), on the
 * method (405 with a JSON:API error, OPTIONS, CORS preflight) and on the layout's own mapping (page files, records
 * with and without their trailing slash); serve-handler answers none of these and would serve any method. What it
 * would add — reading a file and typing it — is a few lines here, and the `_headers` rules are read the way
 * Cloudflare Pages and Netlify read them, so the mirror sends what those hosts send.
 *
 * Safety: only the files SHA256SUMS lists are answered (snapshot-files.ts), paths that try to leave the tree are
 * refused with a 400, nothing is ever written, and slow or endless requests are cut by header and request timeouts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CvSnapshotError } from '../errors.js';
import { printable, printableLines } from '../safe-text.js';
import { listDocument, pageLinkQuery } from '../jsonapi/query-document.js';
import { invalidParameter, QueryError, queryErrorDocument } from '../jsonapi/query-error.js';
import { resolvePageNumber, runListQuery } from '../jsonapi/query-run.js';
import { isPlainPageQuery, PAGE_NUMBER, parseListQuery, parseRelatedQuery } from '../jsonapi/query.js';
import { INDEX_FILE, Layout } from '../format/layout.js';
import { MANIFEST_PATH, manifestSchema, type Manifest } from '../format/manifest.js';
import { readSnapshotFile } from '../format/read-snapshot.js';
import { locate } from '../url/api-location.js';
import { answerClientError } from './client-error.js';
import { Compression } from './compress.js';
import { parseHeadersFile, type HeaderRule } from './headers-rules.js';
import { ListPages } from './list-pages.js';
import { unsafePathReason, resolveTarget } from './request-target.js';
import { cataloguePageOf, pageAtApiUrl, prefersHtml } from './negotiate.js';
import { ALLOW, errorAnswer, jsonApiAnswer, mediaTypeOfFile, send, sendOptions, type Answer } from './respond.js';
import { SnapshotCollections, storedAccess } from './snapshot-collections.js';
import { notADirectory, RefusedFileError, SnapshotFiles } from './snapshot-files.js';

export interface ServeOptions {
  /** The snapshot directory (default `out`). */
  dir?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Answer CORS preflights and send `Access-Control-Allow-Origin: *`. */
  cors?: boolean;
  /** Called with one line per request; no request log when absent. */
  log?: (line: string) => void;
  /** Time allowed for a request's headers (default 10 s) and for the whole request (default 30 s). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Idle time of a kept-alive connection (default 5 s). */
  keepAliveTimeoutMs?: number;
}

export interface ServeHandle {
  /** The API root on this server, e.g. `http://127.0.0.1:3000/sms/cv/api/v1/`. */
  readonly url: string;
  readonly origin: string;
  /** Stops taking connections, lets requests in flight finish (at most `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

/** The directory is not a snapshot, or the port cannot be had. */
export class ServeError extends CvSnapshotError {}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** The prefix of the links `serve` generates, as the crawl wrote the stored ones (`--links`). */
function linkPrefix(manifest: Manifest, layout: Layout): string {
  const rootPath = layout.rootPath().slice(1);
  if (manifest.options.links === 'absolute' && manifest.options.baseUrl !== null) {
    const base = manifest.options.baseUrl.endsWith('/') ? manifest.options.baseUrl : `${manifest.options.baseUrl}/`;
    return `${base}${rootPath}`;
  }
  if (manifest.options.links === 'original') return `${new URL(layout.root).origin}/${rootPath}`;
  return `/${rootPath}`;
}

async function openSnapshot(dir: string) {
  let files: SnapshotFiles;
  let manifest: Manifest;
  const notDir = await notADirectory(dir);
  if (notDir !== null) throw new ServeError(notDir);
  try {
    files = await SnapshotFiles.open(dir);
    manifest = manifestSchema.parse(JSON.parse(readSnapshotFile(files.dir, MANIFEST_PATH).toString('utf8')));
  } catch (error) {
    throw new ServeError(
      `${dir} is not a snapshot that can be served (${(error as Error).message.split('\n')[0]}). ` +
        'Give the directory that `cv-snapshot crawl --out` wrote, and check it with `cv-snapshot verify`.',
    );
  }
  const layout = new Layout(manifest.source.root);
  const rootFile = layout.fileOfServedPath(layout.rootPath());
  let names: string[] = [];
  if (rootFile !== null && files.has(rootFile)) {
    const rootIndex = (await files.readJson(rootFile)) as { data?: unknown };
    if (typeof rootIndex.data === 'object' && rootIndex.data !== null) names = Object.keys(rootIndex.data);
  }
  let rules: HeaderRule[] = [];
  try {
    rules = parseHeadersFile(readSnapshotFile(files.dir, '_headers').toString('utf8'));
  } catch {
    // A snapshot without `_headers` is still served; generated answers carry the media type themselves.
  }
  const listPages = new ListPages(() => files.files());
  const complete = manifest.options.collectionIndex === 'complete';
  const collections = new SnapshotCollections(layout, files, new Set(names), complete, listPages);
  return { files, manifest, layout, rules, collections, listPages };
}

/**
 * A file the snapshot lists that is missing, or is a named pipe, socket, device, directory or symbolic link in the
 * tree (planted there, or the tree was changed after the crawl): a 404 or a 403, never a wait or a 500.
 */
function refusedAnswer(error: RefusedFileError): Answer {
  if (error.why === null) {
    return errorAnswer(
      404,
      'Not Found',
      `The snapshot lists ${error.file} for this URL, but it is missing; run \`cv-snapshot verify\` on the snapshot.`,
    );
  }
  return errorAnswer(
    403,
    'Forbidden',
    `The snapshot's file for this URL is not served: ${error.why}, and serve answers only regular files. ` +
      'Run `cv-snapshot verify` on the snapshot.',
  );
}

function internalError(method: string, target: string, error: unknown): Answer {
  // A parse error quotes the stored text it failed on: no control character of it reaches the terminal.
  process.emitWarning(
    printableLines(`cv-snapshot serve: ${method} ${target} failed: ${(error as Error).stack ?? String(error)}`),
  );
  return errorAnswer(500, 'Internal Server Error', 'The snapshot could not be read; run `cv-snapshot verify` on it.');
}

export async function startServe(options: ServeOptions = {}): Promise<ServeHandle> {
  const dir = options.dir ?? 'out';
  const host = options.host ?? '127.0.0.1';
  const cors = options.cors === true;
  const snapshot = await openSnapshot(dir);
  const { files, layout, rules, collections, listPages } = snapshot;
  const prefix = linkPrefix(snapshot.manifest, layout);
  const access = storedAccess((type) => collections.loadedOfType(type));
  const sendContext = { rules, cors, compression: new Compression() };

  const apiSegments = layout.rootSegments();
  const isApiFile = (file: string): boolean => {
    const segments = file.split('/');
    return apiSegments.every((segment, i) => segments[i] === segment);
  };

  const fileAnswer = async (file: string): Promise<Answer> => {
    const stored = await files.read(file);
    return {
      status: 200,
      body: stored.body,
      contentType: mediaTypeOfFile(file),
      forceContentType: false,
      etag: stored.etag,
    };
  };

  const listAnswer = async (name: string, rawQuery: string): Promise<Answer> => {
    const query = parseListQuery(rawQuery);
    if (isPlainPageQuery(query)) {
      // The page as the source served it, stored by the crawl.
      const stored = collections.pageNumbers(name);
      const page = resolvePageNumber(query.pageNumber, Math.max(1, stored.at(-1) ?? 1));
      const file = collections.pageFile(name, page);
      if (!files.has(file)) throw new QueryError(404, 'page[number]', 'Invalid page.');
      return fileAnswer(file);
    }
    const collection = await collections.get(name);
    const related = new Set([
      ...query.filters.flatMap((f) => (f.relationship === null ? [] : [f.relationship])),
      ...(query.include ?? []),
    ]);
    if (related.size > 0) await collections.loadTargets(collection, related);
    const result = runListQuery(collection, query, access, collection.pageSize);
    const base = `${prefix}${encodeURIComponent(name)}/?`;
    const document = listDocument({
      pageLink: (n) => base + pageLinkQuery(query.linkParams, n),
      data: result.items,
      included: result.included?.map((entry) => entry.record) ?? null,
      page: result.page,
      pages: result.pages,
      count: result.count,
    });
    return jsonApiAnswer(200, document, { Allow: ALLOW });
  };

  /**
   * A stored file. A related address also takes `page[number]` (a source may paginate a related list, and its page
   * links then carry it): page n is answered from the page the crawl stored, in any spelling the source reads.
   */
  const storedAnswer = async (file: string, rawQuery: string): Promise<Answer> => {
    const pageNumber = parseRelatedQuery(rawQuery);
    if (pageNumber === undefined) return fileAnswer(file);
    const url = layout.sourceUrlOfServedPath(layout.servedPathOfFile(file));
    const location = locate(url, layout.root);
    if (location.kind !== 'related' || location.page !== 1 || !file.endsWith(`/${INDEX_FILE}`)) {
      throw invalidParameter(PAGE_NUMBER, `invalid query parameter: ${PAGE_NUMBER}`);
    }
    const stored = listPages.numbers(file.slice(0, -INDEX_FILE.length - 1));
    const page = resolvePageNumber(pageNumber, Math.max(1, stored.at(-1) ?? 1));
    const pageFile = page === 1 ? file : layout.pageOf(url, page)?.file;
    if (pageFile === undefined || !files.has(pageFile)) throw new QueryError(404, PAGE_NUMBER, 'Invalid page.');
    return fileAnswer(pageFile);
  };

  const answer = async (method: string, rawPath: string, rawQuery: string, accept?: string): Promise<Answer> => {
    const unsafe = unsafePathReason(rawPath);
    if (unsafe !== null) return errorAnswer(400, 'Bad Request', `This path is refused: ${unsafe}.`);
    if (method !== 'GET' && method !== 'HEAD') {
      return errorAnswer(405, 'Method Not Allowed', `Method "${method}" not allowed: the mirror is read-only.`, {
        Allow: ALLOW,
        Connection: 'close',
      });
    }
    const target = resolveTarget(rawPath, layout, collections.names, (file) => files.has(file));
    if (target.kind === 'not-found')
      return errorAnswer(404, 'Not Found', 'No document of this snapshot answers this URL.');
    const page = prefersHtml(accept) ? cataloguePageOf(target, layout) : null;
    if (page !== null && files.has(page)) {
      const stored = await fileAnswer(page);
      return {
        ...stored,
        body: pageAtApiUrl(stored.body, page),
        etag: stored.etag?.replace(/"$/, '-page"'),
        forceContentType: true,
        headers: { Vary: 'Accept' },
      };
    }
    // A catalogue page or any other file outside the API (its scripts, styles, the manifest): a static file, answered
    // whatever its query, as a static host answers it; the catalogue keeps its search and sort there (`?q=kelvin`).
    if (target.kind === 'file' && !isApiFile(target.file)) return fileAnswer(target.file);
    try {
      if (target.kind === 'list') return await listAnswer(target.collection, rawQuery);
      return await storedAnswer(target.file, rawQuery);
    } catch (error) {
      if (error instanceof QueryError) return jsonApiAnswer(error.status, queryErrorDocument(error), { Allow: ALLOW });
      throw error;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const rawPath = queryAt < 0 ? target : target.slice(0, queryAt);
    const rawQuery = queryAt < 0 ? '' : target.slice(queryAt + 1);
    if (method === 'OPTIONS' && unsafePathReason(rawPath) === null) return sendOptions(req, res, cors);
    let result: Answer;
    try {
      result = await answer(method, rawPath, rawQuery, req.headers.accept);
    } catch (error) {
      result = error instanceof RefusedFileError ? refusedAnswer(error) : internalError(method, target, error);
    }
    return send(req, res, rawPath, result, sendContext);
  };

  /** The response in flight on each connection, so that a client error never writes into one. */
  const inFlight = new WeakMap<object, ServerResponse>();
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      // How often Node checks the two timeouts above.
      connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs ?? 10_000),
    },
    (req, res) => {
      inFlight.set(req.socket, res);
      res.once('close', () => inFlight.get(req.socket) === res && inFlight.delete(req.socket));
      const started = performance.now();
      const log = options.log;
      if (log !== undefined) {
        res.once('close', () => {
          const ms = (performance.now() - started).toFixed(1);
          const bytes = res.getHeader('content-length') ?? 0;
          const status = res.writableFinished ? res.statusCode : `${res.statusCode} (aborted)`;
          log(`${req.method ?? '?'} ${printable(req.url ?? '')} ${status} ${String(bytes)}B ${ms}ms`);
        });
      }
      handle(req, res).catch((error: unknown) => {
        process.emitWarning(printableLines(`cv-snapshot serve: ${String(error)}`));
        res.destroy();
      });
    },
  );
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    answerClientError(error, socket, inFlight.get(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const port = options.port ?? 3000;
      reject(
        error.code === 'EADDRINUSE'
          ? new ServeError(
              `Port ${port} on ${host} is in use by another program; ` +
                'give another port with --port, or --port 0 to pick a free one.',
              { cause: error },
            )
          : new ServeError(`Cannot listen on ${host}:${port}: ${error.message}.`, { cause: error }),
      );
    });
    server.listen(options.port ?? 3000, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${urlHost(host)}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}${layout.rootPath()}`,
    origin,
    close: (graceMs = 2000) => {
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
