/**
 * The check of each file of a snapshot that SHA256SUMS lists (verify-snapshot.ts walks the tree and reads
 * SHA256SUMS): its checksum, then a catalogue page's links, or a document's links and validation.
 *
 * Each file is read once, synchronously (hash, then parse): many small files make asynchronous reads cost more
 * in thread-pool round trips than in I/O.
 */
import path from 'node:path';
import { JsonTooDeepError, parseJson } from '../json/parse-json.js';
import { visitLinks } from '../jsonapi/links.js';
import { printable } from '../util/safe-text.js';
import { canonicalUrl } from '../url/canonical-url.js';
import { InvariantChecker } from '../validate/invariants.js';
import { validateDocument } from '../validate/validate-document.js';
import { isRecordPage, recordOfPage, recordPageProblem } from '../format/catalogue-names.js';
import { INDEX_FILE, type Layout, TOP_LEVEL_FILES } from '../format/layout.js';
import { type Manifest } from '../format/manifest.js';
import { SUMS_PATH } from '../store/sums.js';
import { firstLine, NotRegularFileError, readRegularFile } from '../format/safe-read.js';
import { CollectionRecords } from './collection-records.js';
import type { FileIndex } from './file-index.js';
import { LinkTargets } from './link-targets.js';
import type { Problems } from './problems.js';
import { RecordedFindings } from './recorded-findings.js';
import { RecordPages } from './record-pages.js';
import { TreeFileReader } from './tree-file-reader.js';
import { VerifyFindings } from './verify-findings.js';

/** A document larger than this is hashed but not parsed: it could not become one string (V8's limit is ~512 MiB). */
const MAX_DOCUMENT_BYTES = 500 << 20;

export function isDocumentFile(file: string, layout: Layout): boolean {
  // Below a root path, a top-level index.html is the catalogue's front page, not a document.
  if (file === INDEX_FILE && layout.hasCatalogueRoom()) return false;
  return !(TOP_LEVEL_FILES as readonly string[]).includes(file.split('/')[0]!);
}

/** The relative links (href, src) of a catalogue page that do not resolve to a file listed in SHA256SUMS. */
function brokenCatalogueLinks(file: string, html: string, sums: FileIndex): string[] {
  const broken: string[] = [];
  for (const [, target] of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
    const href = target!.replace(/&amp;/g, '&');
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#')) continue;
    let relative: string;
    try {
      relative = href
        .replace(/[?#].*$/, '')
        .split('/')
        .map(decodeURIComponent)
        .join('/');
    } catch {
      broken.push(href);
      continue;
    }
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), relative));
    if (!sums.has(resolved)) broken.push(href);
  }
  return broken;
}

/**
 * The check of each file SHA256SUMS lists, in order: its checksum, then a catalogue page's links, or a document's
 * links and validation; `finish` adds the cross-document findings and tells the source's faults from the rest.
 */
export class TreeCheck {
  documents = 0;
  links = 0;
  /** Documents changed after the crawl, by URL: their findings are the change's, not the source's. */
  readonly #changed = new Set<string>();
  /** Files listed in SHA256SUMS that were not read as documents: missing, not regular, unreadable, not JSON. */
  #unread = 0;
  readonly findings: VerifyFindings;
  /** Catalogue record pages checked so far, by the record they are for (docs/catalogue.md). */
  readonly #recordPages: RecordPages;
  readonly #invariants: InvariantChecker;
  readonly #collections: CollectionRecords;
  readonly #targets: LinkTargets;
  readonly #recorded: RecordedFindings;
  readonly #reader = new TreeFileReader();

  constructor(
    private readonly dir: string,
    private readonly layout: Layout,
    private readonly files: FileIndex,
    manifest: Manifest,
    private readonly problems: Problems,
  ) {
    this.#recordPages = new RecordPages(files, (file) => this.#recordOfPage(file));
    this.#invariants = new InvariantChecker(layout.root, layout.urls);
    this.#collections = new CollectionRecords(layout, manifest.collections);
    this.#targets = new LinkTargets(layout, manifest.options);
    this.#recorded = new RecordedFindings(dir);
    this.findings = new VerifyFindings(this.#recorded, this.#changed);
  }

  /** Checks `file`, whose SHA-256 SHA256SUMS gives as `expected`. */
  file(file: string, expected: string): void {
    const { layout, problems } = this;
    const url = isDocumentFile(file, layout) ? layout.sourceUrlOfServedPath(layout.servedPathOfFile(file)) : null;
    const page = url === null && file.endsWith('.html') && file !== '404.html';
    let read;
    try {
      read = this.#reader.read(path.join(this.dir, ...file.split('/')), url !== null || page, MAX_DOCUMENT_BYTES);
    } catch (error) {
      const why =
        error instanceof NotRegularFileError ? `is now ${error.kind}` : `cannot be read (${firstLine(error)})`;
      problems.add(`${file} ${why}.`);
      if (url !== null) this.#unread += 1;
      return;
    }
    if (read.sha256 !== expected) {
      problems.add(
        `${file} was changed after the crawl: its SHA-256 is ${read.sha256}, but ${SUMS_PATH} says ${expected}. ` +
          'Restore it, or crawl again.',
      );
      if (url !== null) this.#changed.add(url);
    }
    if (url === null) {
      if (page && read.bytes !== null) this.#page(file, read.bytes.toString('utf8'));
      return;
    }
    if (read.bytes === null) {
      problems.add(`${file} is larger than ${MAX_DOCUMENT_BYTES} bytes, too large to check as a document.`);
      this.#unread += 1;
      return;
    }
    let json: unknown;
    try {
      json = parseJson(read.bytes.toString('utf8'));
    } catch (error) {
      this.#unread += 1;
      if (this.#changed.has(url)) return;
      const why =
        error instanceof JsonTooDeepError
          ? `cannot be checked: ${error.message}`
          : `is not valid JSON (${firstLine(error)})`;
      problems.add(`${file} ${why}.`);
      return;
    }
    this.#document(file, url, json);
  }

  /** A catalogue page: its links resolve inside the snapshot, and a record page is the one for its record. */
  #page(file: string, html: string): void {
    const broken = brokenCatalogueLinks(file, html, this.files);
    if (broken.length > 0) {
      this.problems.add(
        `${file} links to ${broken.slice(0, 3).join(', ')}` +
          `${broken.length > 3 ? ` and ${broken.length - 3} more` : ''}, ` +
          'which the snapshot does not hold. Rebuild the catalogue, or crawl again.',
      );
    }
    if (isRecordPage(file)) {
      const wrong = recordPageProblem(file, html, this.#recordPages);
      if (wrong !== null) this.problems.add(printable(wrong));
    }
  }

  /** The record the catalogue page `file`, checked before, is for (read again); null if it says none or is gone. */
  #recordOfPage(file: string): string | null {
    try {
      const bytes = readRegularFile(path.join(this.dir, ...file.split('/')), MAX_DOCUMENT_BYTES);
      return recordOfPage(bytes.toString('utf8'));
    } catch {
      return null;
    }
  }

  /** A document of the API: every link resolves to a file (or the report says why not), and it validates. */
  #document(file: string, url: string, json: unknown): void {
    const { layout } = this;
    this.documents += 1;
    const location = layout.urls.locate(url);
    // A page's `first` and `prev` may be one link: it is a problem once.
    const broken = new Set<string>();
    visitLinks(json, location.kind === 'root', (link) => {
      this.links += 1;
      const target = this.#targets.file(link, url);
      const source = this.#targets.source(link);
      const explained = this.#recorded.explainsMissing(source ?? canonicalOrSelf(link, url));
      if (
        !explained &&
        !this.#changed.has(url) &&
        (target === undefined || (target !== null && !this.files.isFile(target))) &&
        !broken.has(link)
      ) {
        broken.add(link);
        this.problems.add(`${file} links to ${link}, which is not a file of the snapshot.`);
      }
      return source;
    });
    const check = validateDocument(json, url, layout.root, layout.urls);
    if (layout.isCollectionIndexFile(file) && location.kind === 'list') {
      this.#collections.hold(location.collection, check.findings);
    } else {
      this.findings.addDocument(check.findings, location.kind === 'list');
      this.#invariants.add(url, check.summary);
      this.#collections.addDocument(location, json);
    }
  }

  /** `count` files listed in SHA256SUMS that were never given to `file`: missing, or not regular files. */
  notRead(count: number): void {
    this.#unread += count;
  }

  /**
   * Adds the findings of complete collections and the cross-document ones; the validation errors the report does
   * not explain are problems, and so are collections whose documents do not add up to what the manifest says. When a
   * document was not read as the crawl wrote it (changed, missing, unreadable), what the checks across documents
   * find is its consequence (a collection with no readable page "has none"), said in one sentence, not blamed on
   * the source.
   */
  finish(): void {
    const { problems } = this;
    for (const problem of this.#collections.countProblems()) problems.add(problem);
    this.findings.addPlaced(this.#collections.placed());
    this.findings.addAcross(this.#invariants.finish(), this.#unread === 0 && this.#changed.size === 0);
    this.findings.reportProblems(problems);
    const { leftOut } = this.findings;
    if (leftOut > 0) {
      problems.add(
        `${leftOut === 1 ? 'One error' : `${leftOut} errors`} found by the checks across documents (pagination, ` +
          `the targets of relationships) ${leftOut === 1 ? 'is left out: it comes' : 'are left out: they come'} ` +
          'from the files above that were changed, are missing or cannot be read.',
      );
    }
  }
}

function canonicalOrSelf(link: string, base: string): string {
  try {
    return canonicalUrl(link, base);
  } catch {
    return link;
  }
}
