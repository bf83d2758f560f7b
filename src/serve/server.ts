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
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { realpath } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { ServeError } from '../util/errors.js';
import { printable, printableLines, quoteUntrusted } from '../util/safe-text.js';
import { partialSentence } from '../format/partial.js';
import { INDEX_FILE, Layout } from '../format/layout.js';
import type { Manifest } from '../format/manifest.js';
import { NotASnapshotError, readSnapshotManifest } from '../format/read-manifest.js';
import { firstLine, readSnapshotFile } from '../format/safe-read.js';
import { SnapshotAnswers } from './answer.js';
import { answerClientError } from './client-error.js';
import { Compression } from './compress.js';
import { parseHeadersFile, type HeaderRule } from './headers-rules.js';
import { ListPages } from './list-pages.js';
import { unsafePathReason } from './request-target.js';
import { errorAnswer, send, sendOptions, type Answer, type SendContext } from './respond.js';
import { SnapshotCollections } from './snapshot-collections.js';
import { notADirectory, RefusedFileError, SnapshotFiles, UnparsableFileError } from './snapshot-files.js';
import { SUMS_PATH } from '../store/sums.js';
import { isObject } from '../json/is-object.js';
import { plural } from '../util/plural.js';
import { urlHost } from '../util/http-server.js';

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
  /**
   * Called with a line for each thing serve could not do as the snapshot asks (a header it leaves out, a stored file
   * it cannot read, a request it failed to answer), already made printable; written to stderr when absent.
   */
  warn?: (line: string) => void;
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
  /**
   * The catalogue's front page on this server, for people to open in a browser (`${origin}/`), or null when the
   * snapshot has none (made with `--catalogue none`, or of an API whose root is the host's root).
   */
  readonly catalogue: string | null;
  /**
   * Why the snapshot is partial (made with --allow-partial: documents missing, or collections whose pages shifted),
   * in the sentence `verify` prints; null when it is complete. A partial snapshot is served as it is: 404 for the
   * documents it lacks.
   */
  readonly partial: string | null;
  /** Stops taking connections, lets requests in flight finish (at most `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

/**
 * The prefix of the links `serve` generates, as the crawl wrote the stored ones (`--links`): the API root's address
 * in that form. Not StoredLinks' prefix (src/format/rewrite-links.ts), which reads stored links back: this one writes
 * new links, so it holds the root's path, is the source's root with `original` links, and a manifest of absolute
 * links without a base URL is still served, with root-relative links.
 */
function linkPrefix(manifest: Manifest, layout: Layout): string {
  const rootPath = layout.rootPath().slice(1);
  if (manifest.options.links === 'absolute' && manifest.options.baseUrl !== null) {
    const base = manifest.options.baseUrl.endsWith('/') ? manifest.options.baseUrl : `${manifest.options.baseUrl}/`;
    return `${base}${rootPath}`;
  }
  if (manifest.options.links === 'original') return `${new URL(layout.root).origin}/${rootPath}`;
  return `/${rootPath}`;
}

/** A plain line on stderr: serve's default for `warn`, like its request log (no process warning and its prefix). */
function warnOnStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function openSnapshot(dir: string, warn: (line: string) => void) {
  let files: SnapshotFiles;
  let manifest: Manifest;
  const notDir = await notADirectory(dir);
  if (notDir !== null) throw new ServeError(notDir);
  const give = 'Give the directory that `cv-snapshot crawl --out` wrote, and check it with `cv-snapshot verify`.';
  // --out is a link that a crawl swaps: the manifest and the files are read from the one directory it names now.
  let root: string;
  try {
    root = await realpath(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ServeError(`${dir} does not exist. ${give}`);
    throw new ServeError(`${dir} cannot be read (${code ?? firstLine(error)}). ${give}`);
  }
  try {
    files = await SnapshotFiles.open(root);
    // A manifest that is not one crawl writes is named, with the field that is not (as every command names it).
    manifest = readSnapshotManifest(root, dir, give);
  } catch (error) {
    if (error instanceof NotASnapshotError) throw new ServeError(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      throw new ServeError(`${dir} is not a snapshot that can be served (${firstLine(error)}). ${give}`);
    }
    // No SHA256SUMS: a folder without a manifest either is not a snapshot, and is named as every command names it.
    throw new ServeError(
      notSnapshot(root, dir, give) ?? `${dir} is not a complete snapshot: it has no ${SUMS_PATH}. ${give}`,
    );
  }
  const layout = new Layout(manifest.source.root);
  const rootFile = layout.fileOfServedPath(layout.rootPath());
  let names: string[] = [];
  if (rootFile !== null && files.has(rootFile)) {
    let rootIndex: unknown;
    try {
      rootIndex = await files.readJson(rootFile);
    } catch (error) {
      if (!(error instanceof UnparsableFileError)) throw error;
      throw new ServeError(
        `${dir} cannot be served: its root index ${printable(error.message)}. Check it with \`cv-snapshot verify\`.`,
      );
    }
    // The collections the root index names (a root index of another shape names none: verify reports it).
    if (isObject(rootIndex) && isObject(rootIndex.data)) names = Object.keys(rootIndex.data);
  }
  let rules: HeaderRule[] = [];
  const skipped: string[] = [];
  try {
    rules = parseHeadersFile(readSnapshotFile(files.dir, '_headers').toString('utf8'), skipped);
  } catch {
    // A snapshot without `_headers` is still served; generated answers carry the media type themselves.
  }
  if (skipped.length > 0) {
    warn(
      printableLines(
        `cv-snapshot serve: ${dir}/_headers: ${plural(skipped.length, 'header')} left out, which no HTTP answer may ` +
          `carry (a control character, or a name that is no token): ${skipped.slice(0, 5).join(', ')}` +
          `${skipped.length > 5 ? ', …' : ''}; the others are sent.`,
      ),
    );
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
      `The snapshot has no file ${error.file} for this URL; run \`cv-snapshot verify\` on the snapshot.`,
    );
  }
  return errorAnswer(
    403,
    'Forbidden',
    `The snapshot's file for this URL is not served: ${error.why}, and serve answers only regular files. ` +
      'Run `cv-snapshot verify` on the snapshot.',
  );
}

/** A stored file the answer needed is not JSON: a sentence in the log and in the answer, no stack. */
function unparsableAnswer(
  warn: (line: string) => void,
  method: string,
  target: string,
  error: UnparsableFileError,
): Answer {
  warn(
    printableLines(
      `cv-snapshot serve: ${method} ${target}: the snapshot's file ${error.message}; run cv-snapshot verify on it.`,
    ),
  );
  return errorAnswer(
    500,
    'Internal Server Error',
    `The snapshot's file for this URL cannot be read: ${error.message}. Run \`cv-snapshot verify\` on the snapshot.`,
  );
}

/** A request serve failed to answer, for a reason of its own: a sentence in the log, never a stack. */
function internalError(warn: (line: string) => void, method: string, target: string, error: unknown): Answer {
  // A parse error quotes the stored text it failed on: no control character of it reaches the terminal.
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  warn(
    printableLines(
      `cv-snapshot serve: ${method} ${target} failed (${firstLine(reason)}); this is a fault in cv-snapshot ` +
        'serve: please report it with this line.',
    ),
  );
  return errorAnswer(500, 'Internal Server Error', 'The snapshot could not be read; run `cv-snapshot verify` on it.');
}

export async function startServe(options: ServeOptions = {}): Promise<ServeHandle> {
  const host = options.host ?? '127.0.0.1';
  const warn = options.warn ?? warnOnStderr;
  const snapshot = await openSnapshot(options.dir ?? 'out', warn);
  const answers = new SnapshotAnswers({ ...snapshot, prefix: linkPrefix(snapshot.manifest, snapshot.layout) });
  const sendContext: SendContext = {
    rules: snapshot.rules,
    cors: options.cors === true,
    compression: new Compression(),
  };
  const server = createHttpServer(options, warn, (req, res) => handle(answers, sendContext, warn, req, res));
  await listen(server, host, options.port ?? 3000);
  const { port } = server.address() as AddressInfo;
  const origin = `http://${urlHost(host)}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}${snapshot.layout.rootPath()}`,
    origin,
    catalogue: snapshot.layout.hasCatalogueRoom() && snapshot.files.has(INDEX_FILE) ? `${origin}/` : null,
    partial: snapshot.manifest.partial
      ? partialSentence(quoteUntrusted(options.dir ?? 'out'), snapshot.manifest)
      : null,
    close: (graceMs = 2000) => (closing ??= closeServer(server, graceMs)),
  };
}

/** Why `dir` is not a snapshot at all, in the words every command uses, or null when it has a manifest. */
function notSnapshot(root: string, dir: string, give: string): string | null {
  try {
    readSnapshotManifest(root, dir, give);
    return null;
  } catch (error) {
    return error instanceof NotASnapshotError ? error.message : null;
  }
}

/** Answers one request; resolves with the status sent. */
async function handle(
  answers: SnapshotAnswers,
  sendContext: SendContext,
  warn: (line: string) => void,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<number> {
  const method = req.method ?? 'GET';
  const target = req.url ?? '/';
  const queryAt = target.indexOf('?');
  const rawPath = queryAt < 0 ? target : target.slice(0, queryAt);
  const rawQuery = queryAt < 0 ? '' : target.slice(queryAt + 1);
  if (method === 'OPTIONS' && unsafePathReason(rawPath) === null) return sendOptions(req, res, sendContext.cors);
  let result: Answer;
  try {
    result = await answers.answer(method, rawPath, rawQuery, req.headers.accept);
  } catch (error) {
    if (error instanceof RefusedFileError) result = refusedAnswer(error);
    else if (error instanceof UnparsableFileError) result = unparsableAnswer(warn, method, target, error);
    else result = internalError(warn, method, target, error);
  }
  return send(req, res, rawPath, result, sendContext);
}

/** The HTTP server, with its timeouts, the request log and answers to client errors. */
function createHttpServer(
  options: ServeOptions,
  warn: (line: string) => void,
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<number>,
): Server {
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
      if (options.log !== undefined) logRequest(req, res, options.log);
      handler(req, res).catch((error: unknown) => {
        const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        warn(printableLines(`cv-snapshot serve: ${req.method ?? '?'} ${req.url ?? ''} failed (${firstLine(reason)}).`));
        res.destroy();
      });
    },
  );
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    answerClientError(error, socket, inFlight.get(socket));
  });
  return server;
}

/** Logs the request's line once its response is finished or aborted. */
function logRequest(req: IncomingMessage, res: ServerResponse, log: (line: string) => void): void {
  const started = performance.now();
  res.once('close', () => {
    const ms = (performance.now() - started).toFixed(1);
    const bytes = res.getHeader('content-length') ?? 0;
    const status = res.writableFinished ? res.statusCode : `${res.statusCode} (aborted)`;
    log(`${req.method ?? '?'} ${printable(req.url ?? '')} ${status} ${String(bytes)}B ${ms}ms`);
  });
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
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
    server.listen(port, host, () => resolve());
  });
}

/** Stops taking connections, lets requests in flight finish for at most `graceMs`, then closes the rest. */
function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
