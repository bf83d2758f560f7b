/**
 * What `serve` answers a request with (server.ts owns the HTTP server around it): a stored file, a list page as the
 * source served it, a list query run over the stored records, or a catalogue page for a browser.
 */
import { listDocument, pageLinkQuery } from '../jsonapi/query-document.js';
import { invalidParameter, QueryError, queryErrorDocument } from '../jsonapi/query-error.js';
import { resolvePageNumber, runListQuery } from '../jsonapi/query-run.js';
import { isPlainPageQuery, PAGE_NUMBER, parseListQuery, parseRelatedQuery } from '../jsonapi/query.js';
import { INDEX_FILE, type Layout } from '../format/layout.js';
import { locate } from '../url/api-location.js';
import type { ListPages } from './list-pages.js';
import { cataloguePageOf, pageAtApiUrl, prefersHtml, recordOfFile } from './negotiate.js';
import { preferredRdf, RDF_TYPES, type RdfFormat } from './rdf-accept.js';
import type { SkosAnswers } from './skos.js';
import { NOT_FOUND_PAGE, removedRecordPage, TOMBSTONES_FILE } from '../format/catalogue-names.js';
import { ExportError } from '../util/errors.js';
import { SnapshotReadError } from '../format/stored-records.js';
import type { Manifest } from '../format/manifest.js';
import { createHash } from 'node:crypto';
import { unsafePathReason, resolveTarget, type RequestTarget } from './request-target.js';
import { ALLOW, errorAnswer, jsonApiAnswer, mediaTypeOfFile, type Answer } from './respond.js';
import { storedAccess, type SnapshotCollections } from './snapshot-collections.js';
import type { SnapshotFiles } from './snapshot-files.js';

/** The opened snapshot the answers come from. */
export interface ServedSnapshot {
  files: SnapshotFiles;
  manifest: Manifest;
  layout: Layout;
  collections: SnapshotCollections;
  listPages: ListPages;
  /** The prefix of the links generated answers carry, as the crawl wrote the stored ones. */
  prefix: string;
}

export class SnapshotAnswers {
  readonly #snapshot: ServedSnapshot;
  readonly #access: ReturnType<typeof storedAccess>;
  readonly #apiSegments: readonly string[];
  /** Loaded on the first request for SKOS: a JSON:API or browser client never loads the export's mapping. */
  #skos: Promise<SkosAnswers> | undefined;
  /** The removed records' pages by address, read on the first browser's request for an address the snapshot lacks. */
  #removed: Promise<(collection: string, id: string) => string | undefined> | undefined;

  constructor(snapshot: ServedSnapshot) {
    this.#snapshot = snapshot;
    this.#access = storedAccess((type) => snapshot.collections.loadedOfType(type));
    this.#apiSegments = snapshot.layout.rootSegments();
  }

  /** The answer to `method` on `rawPath?rawQuery`; `accept` is the request's Accept header. */
  async answer(method: string, rawPath: string, rawQuery: string, accept?: string): Promise<Answer> {
    const { files, layout, collections } = this.#snapshot;
    const unsafe = unsafePathReason(rawPath);
    if (unsafe !== null) return errorAnswer(400, 'Bad Request', `This path is refused: ${unsafe}.`);
    if (method !== 'GET' && method !== 'HEAD') {
      return errorAnswer(405, 'Method Not Allowed', `Method "${method}" not allowed: the mirror is read-only.`, {
        Allow: ALLOW,
        Connection: 'close',
      });
    }
    const target = resolveTarget(rawPath, layout, collections.names, (file) => files.has(file));
    if (target.kind === 'not-found') {
      const html = prefersHtml(accept) ? ((await this.#removedPage(rawPath)) ?? (await this.#notFoundPage())) : null;
      return html ?? errorAnswer(404, 'Not Found', 'No document of this snapshot answers this URL.');
    }
    const rdf = preferredRdf(accept);
    if (rdf !== null) {
      const skos = await this.#skosOf(target, rdf);
      if (skos !== null) return skos;
    }
    const page = prefersHtml(accept) ? cataloguePageOf(target, layout) : null;
    if (page !== null && files.has(page)) {
      const stored = await this.#file(page);
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
    if (target.kind === 'file' && !this.#isApiFile(target.file)) return this.#file(target.file);
    try {
      if (target.kind === 'list') return await this.#list(target.collection, rawQuery);
      return await this.#stored(target.file, rawQuery);
    } catch (error) {
      if (error instanceof QueryError) return jsonApiAnswer(error.status, queryErrorDocument(error), { Allow: ALLOW });
      throw error;
    }
  }

  /**
   * A browser on the address of a record the source no longer lists: the page the catalogue keeps for it (its
   * tombstone, src/catalogue/tombstones.ts), with 410 Gone; null when the address is no removed record's. Where
   * several removed records had the address, the page of the one removed last, which links the others.
   */
  async #removedPage(rawPath: string): Promise<Answer | null> {
    const { layout, files } = this.#snapshot;
    const file = layout.fileOfServedPath(rawPath.endsWith('/') ? rawPath : `${rawPath}/`);
    const record = file === null ? null : recordOfFile(file, layout);
    if (record === null) return null;
    this.#removed ??= this.#removedPages();
    const listed = (await this.#removed)(record.collection, record.id);
    // A catalogue that lists no removed records in removed.json (an older one) names its pages by address alone.
    const page = listed ?? removedRecordPage(record.collection, record.id);
    return files.has(page) ? this.#pageWithStatus(page, 410) : null;
  }

  async #removedPages(): Promise<(collection: string, id: string) => string | undefined> {
    const { files } = this.#snapshot;
    const none = () => undefined;
    if (!files.has(TOMBSTONES_FILE)) return none;
    try {
      const text = (await files.read(TOMBSTONES_FILE)).body.toString('utf8');
      const { addressPages, tombstoneAddress, tombstonesOfText } = await import('../catalogue/tombstones.js');
      const pages = addressPages(tombstonesOfText(text));
      return (collection, id) => pages.get(tombstoneAddress(collection, id));
    } catch {
      // Listed but unreadable (changed since it was written): the pages named by their address alone still answer.
      return none;
    }
  }

  /**
   * A browser on a URL the snapshot has no document for: the catalogue's page for it, with 404 (the search box in
   * its header), or null when the snapshot has no catalogue.
   */
  async #notFoundPage(): Promise<Answer | null> {
    return this.#snapshot.files.has(NOT_FOUND_PAGE) ? this.#pageWithStatus(NOT_FOUND_PAGE, 404) : null;
  }

  /** A catalogue page answered with an error status at the address asked for (without the file's ETag). */
  async #pageWithStatus(page: string, status: number): Promise<Answer> {
    const { etag: _etag, ...stored } = await this.#file(page);
    return {
      ...stored,
      status,
      body: pageAtApiUrl(stored.body, page),
      forceContentType: true,
      headers: { Vary: 'Accept' },
    };
  }

  /** SKOS for a record's or a collection's API URL, or null for any other target. */
  async #skosOf(target: RequestTarget, format: RdfFormat): Promise<Answer | null> {
    const { layout, files, manifest } = this.#snapshot;
    let body: Buffer | null = null;
    try {
      this.#skos ??= import('./skos.js').then(({ SkosAnswers }) => new SkosAnswers(files, manifest));
      const skos = await this.#skos;
      if (target.kind === 'list') body = await skos.collection(target.collection, format);
      else if (target.kind === 'file') {
        const record = recordOfFile(target.file, layout);
        if (record !== null) body = await skos.record(record.collection, target.file, format);
      }
    } catch (error) {
      // A file of the snapshot cannot be read (the reader's error), or the export cannot be made of it.
      if (!(error instanceof SnapshotReadError) && !(error instanceof ExportError)) throw error;
      return errorAnswer(500, 'Internal Server Error', `${error.message}`);
    }
    if (body === null) return null;
    return {
      status: 200,
      body,
      contentType: RDF_TYPES[format],
      forceContentType: true,
      etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`,
      headers: { Vary: 'Accept' },
    };
  }

  #isApiFile(file: string): boolean {
    const segments = file.split('/');
    return this.#apiSegments.every((segment, i) => segments[i] === segment);
  }

  async #file(file: string): Promise<Answer> {
    const stored = await this.#snapshot.files.read(file);
    return {
      status: 200,
      body: stored.body,
      contentType: mediaTypeOfFile(file),
      forceContentType: false,
      etag: stored.etag,
    };
  }

  async #list(name: string, rawQuery: string): Promise<Answer> {
    const { files, collections, prefix } = this.#snapshot;
    const query = parseListQuery(rawQuery);
    if (isPlainPageQuery(query)) {
      // The page as the source served it, stored by the crawl.
      const stored = collections.pageNumbers(name);
      const page = resolvePageNumber(query.pageNumber, Math.max(1, stored.at(-1) ?? 1));
      const file = collections.pageFile(name, page);
      if (!files.has(file)) throw new QueryError(404, 'page[number]', 'Invalid page.');
      return this.#file(file);
    }
    const collection = await collections.get(name);
    const related = new Set([
      ...query.filters.flatMap((f) => (f.relationship === null ? [] : [f.relationship])),
      ...(query.include ?? []),
    ]);
    if (related.size > 0) await collections.loadTargets(collection, related);
    const result = runListQuery(collection, query, this.#access, collection.pageSize);
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
  }

  /**
   * A stored file. A related address also takes `page[number]` (a source may paginate a related list, and its page
   * links then carry it): page n is answered from the page the crawl stored, in any spelling the source reads.
   */
  async #stored(file: string, rawQuery: string): Promise<Answer> {
    const { files, layout, listPages } = this.#snapshot;
    const pageNumber = parseRelatedQuery(rawQuery);
    if (pageNumber === undefined) return this.#file(file);
    const url = layout.sourceUrlOfServedPath(layout.servedPathOfFile(file));
    const location = locate(url, layout.root);
    if (location.kind !== 'related' || location.page !== 1 || !file.endsWith(`/${INDEX_FILE}`)) {
      throw invalidParameter(PAGE_NUMBER, `invalid query parameter: ${PAGE_NUMBER}`);
    }
    const stored = listPages.numbers(file.slice(0, -INDEX_FILE.length - 1));
    const page = resolvePageNumber(pageNumber, Math.max(1, stored.at(-1) ?? 1));
    const pageFile = page === 1 ? file : layout.pageOf(url, page)?.file;
    if (pageFile === undefined || !files.has(pageFile)) throw new QueryError(404, PAGE_NUMBER, 'Invalid page.');
    return this.#file(pageFile);
  }
}
