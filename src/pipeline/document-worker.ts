/**
 * A worker thread of the document pool (document-pool.ts): it reads, validates, rewrites and writes the documents
 * that the main thread sends it, with the same code the main thread runs (`readBody`, `extractLinks`,
 * `prepareDocument`), and answers with what the main thread journals. It holds no state of the crawl: its URLs,
 * layout and writer are built from the run's fixed settings, so its output is the same whichever thread writes it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { documentTargets, listPages } from '../crawl/discovery.js';
import { readBody } from '../crawl/read-document.js';
import { Layout } from '../format/layout.js';
import { createLinkRewriter } from '../format/rewrite-links.js';
import { resolveLinks } from '../jsonapi/links.js';
import { TreeWriter } from '../store/writer.js';
import { UrlSpace } from '../url/url-space.js';
import type { PoolRequest, PoolResponse, WorkerSettings } from './document-pool.js';
import { prepareDocument, type DocumentContext } from './store-document.js';

const settings = workerData as WorkerSettings;
const urls = new UrlSpace(settings.root);
const layout = new Layout(settings.root, urls);
const context: DocumentContext = {
  root: settings.root,
  layout,
  rewriter: createLinkRewriter(layout, settings.links, settings.baseUrl),
  // The main thread lists the files for SHA256SUMS; this writer only writes them.
  writer: new TreeWriter(settings.tree, { listing: false }),
  resuming: settings.resuming,
};

function handle({ id, url, contentType, body }: PoolRequest): PoolResponse {
  try {
    const headers: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
    const read = readBody({ headers, body: Buffer.from(body) });
    if ('failure' in read) return { id, failure: read.failure };
    const location = urls.locate(url);
    const links = resolveLinks(read.json, false, url, urls);
    const targets = documentTargets(links, url, settings.root, listPages(location, read.json));
    return { id, targets, prepared: prepareDocument(context, url, location, read.json, links) };
  } catch (error) {
    // Whatever else went wrong (a file-system call, a fault of ours) crosses as its message and errno fields.
    const { message, stack, code, syscall, path, errno } = error as NodeJS.ErrnoException;
    return { id, error: { message: String(message), stack, code, syscall, path, errno } };
  }
}

parentPort!.on('message', (request: PoolRequest) => parentPort!.postMessage(handle(request)));
