/**
 * `verify`: offline, a snapshot is checked against itself — every file matches SHA256SUMS and no file is missing or
 * extra, every link in every document resolves to a file of the snapshot, and every document validates against
 * the schemas and cross-document rules.
 *
 * A faithful mirror keeps the source's own faults: what validation found at crawl time is in the report, so those
 * findings (and links to documents the report names as dead or unstorable) are counted, not failed; anything the
 * report does not explain is a problem. A file that no longer matches its checksum was changed after the crawl:
 * that is the problem reported for it, and nothing its content breaks is blamed on the source.
 *
 * The tree is not trusted (it may come from an archive from elsewhere): symbolic links, pipes, sockets and devices
 * in it are problems, never opened or followed; JSON nested too deep is a problem, not a stack overflow; every
 * problem is printable (no terminal escapes, no passwords in URLs).
 *
 * Each file is read once, synchronously (hash, then parse): many small files make asynchronous reads cost more
 * in thread-pool round trips than in I/O. The loop yields now and then, so that a signal stops it.
 */
import { createHash } from 'node:crypto';
import { closeSync, readSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { throwIfStopped, VerifyError } from '../errors.js';
import { JsonTooDeepError, parseJson } from '../json/parse-json.js';
import { visitLinks } from '../jsonapi/links.js';
import { printable, redactUrls } from '../safe-text.js';
import { canonicalUrl } from '../url/canonical-url.js';
import type { Finding } from '../validate/finding.js';
import { InvariantChecker } from '../validate/invariants.js';
import { validateDocument } from '../validate/validate-document.js';
import { isRecordPage, recordPageProblem } from '../catalogue/names.js';
import { INDEX_FILE, Layout, TOP_LEVEL_FILES } from '../format/layout.js';
import { SUMS_PATH, type Manifest } from '../format/manifest.js';
import {
  firstLine,
  NotRegularFileError,
  openRegularFile,
  readSums,
  readSnapshotManifest,
  walkTree,
} from '../format/read-snapshot.js';
import { sha256 } from '../store/writer.js';
import { CollectionRecords } from './collection-records.js';
import { LinkTargets } from './link-targets.js';
import { findingKey, RecordedFindings } from './recorded-findings.js';
import { byCodeUnits } from '../code-unit-order.js';

export interface VerifyResult {
  manifest: Manifest;
  files: number;
  documents: number;
  links: number;
  /** Sentences naming what is wrong; empty when the snapshot is sound. */
  problems: string[];
  /** Every validation finding of this run. */
  findings: Finding[];
  /** Validation errors that the crawl recorded in the report (faults of the source, mirrored faithfully). */
  recordedErrors: number;
}

export interface VerifyOptions {
  /** Stops the check (StoppedError). */
  signal?: AbortSignal | undefined;
  /** The snapshot as the user named it (an archive rather than its temporary extraction), for messages. */
  name?: string;
}

/** Unexplained validation errors listed one by one; the rest are counted. */
const LISTED_ERRORS = 20;
/** Files listed in SHA256SUMS but missing, named one by one; the rest are counted. */
const NAMED_MISSING = 1000;
/** A document larger than this is hashed but not parsed: it could not become one string (V8's limit is ~512 MiB). */
const MAX_DOCUMENT_BYTES = 500 << 20;
/** A problem is one line of a terminal or two, whatever a document put in it. */
const MAX_PROBLEM_CHARS = 1000;
/** Files checked between two turns of the event loop. */
const FILES_PER_TURN = 64;

function isDocumentFile(file: string, layout: Layout): boolean {
  // Below a root path, a top-level index.html is the catalogue's front page, not a document.
  if (file === INDEX_FILE && layout.rootSegments().length > 0) return false;
  return !(TOP_LEVEL_FILES as readonly string[]).includes(file.split('/')[0]!);
}

/** The relative links (href, src) of a catalogue page that do not resolve to a file listed in SHA256SUMS. */
function brokenCatalogueLinks(file: string, html: string, sums: ReadonlyMap<string, string>): string[] {
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

/** A large file's SHA-256, read in pieces. */
function hashInPieces(fd: number): string {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(1 << 20);
  for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) hash.update(chunk.subarray(0, read));
  return hash.digest('hex');
}

/** One file of the tree: its bytes (null when too large to parse) and SHA-256. */
function readTreeFile(file: string): { bytes: Buffer | null; sha256: string } {
  const { fd, size } = openRegularFile(file);
  try {
    if (size > MAX_DOCUMENT_BYTES) return { bytes: null, sha256: hashInPieces(fd) };
    const bytes = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const read = readSync(fd, bytes, done, size - done, null);
      if (read === 0) break;
      done += read;
    }
    const whole = done === size ? bytes : bytes.subarray(0, done);
    return { bytes: whole, sha256: sha256(whole) };
  } finally {
    closeSync(fd);
  }
}

/** Text from the tree or from a document, made safe for a terminal line. */
const safe = (text: string): string => printable(redactUrls(text), MAX_PROBLEM_CHARS);

export async function verifySnapshot(dir: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  const { signal } = options;
  const name = options.name ?? dir;
  const problems: string[] = [];
  // Exit 1 (not a snapshot at all), as verify --help says; 3 is for a snapshot that fails its checks.
  const manifest = readSnapshotManifest(dir, name);
  const layout = new Layout(manifest.source.root);
  const tree = await listTree(dir, signal);
  for (const [file, kind] of [...tree.specials].sort(([a], [b]) => byCodeUnits(a, b))) {
    problems.push(`${file} is ${kind}; a snapshot holds only regular files and directories, so it was not read.`);
  }
  const sums = await checkSums(dir, name, tree, problems, signal);
  const sorted = [...tree.files.keys()].sort();
  for (const file of sorted) {
    if (!sums.has(file)) problems.push(`${file} is not part of the snapshot (not in ${SUMS_PATH}).`);
  }
  const check = new TreeCheck(dir, layout, tree.files, sums, manifest, problems);
  let checked = 0;
  for (const file of sorted) {
    if (++checked % FILES_PER_TURN === 0) {
      await nextTurn();
      throwIfStopped(signal);
    }
    const expected = sums.get(file);
    if (expected !== undefined) check.file(file, expected);
  }
  throwIfStopped(signal);
  const { findings, recordedErrors } = check.finish();
  return {
    manifest,
    files: tree.files.size,
    documents: check.documents,
    links: check.links,
    problems: problems.map(safe),
    findings,
    recordedErrors,
  };
}

/** The tree's regular files (with their sizes; SHA256SUMS itself left out) and anything else found in it. */
async function listTree(
  dir: string,
  signal: AbortSignal | undefined,
): Promise<{ files: Map<string, number>; specials: Map<string, string> }> {
  const files = new Map<string, number>();
  const specials = new Map<string, string>();
  await walkTree(
    dir,
    {
      file: (rel, size) => files.set(rel, size),
      special: (rel, kind) => specials.set(rel, kind),
    },
    signal,
  );
  files.delete(SUMS_PATH);
  return { files, specials };
}

/** Reads SHA256SUMS: its faulty lines and the files it lists that are missing are problems. */
async function checkSums(
  dir: string,
  name: string,
  { files, specials }: { files: ReadonlyMap<string, number>; specials: ReadonlyMap<string, string> },
  problems: string[],
  signal: AbortSignal | undefined,
): Promise<Map<string, string>> {
  let reading;
  try {
    reading = await readSums(dir, (file) => files.has(file) || specials.has(file), { signal, named: NAMED_MISSING });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new VerifyError(`${name} has no ${SUMS_PATH}; the snapshot is incomplete. Crawl it again.`);
    }
    if (error instanceof NotRegularFileError) {
      const file = path.relative(dir, error.file);
      throw new VerifyError(`${name}: ${file} is ${error.kind}, not the snapshot's checksums; it was not read.`);
    }
    throw new VerifyError(`${name}: ${SUMS_PATH} cannot be read (${firstLine(error)}).`);
  }
  problems.push(...reading.problems);
  if (reading.problemCount > reading.problems.length) {
    problems.push(`… and ${reading.problemCount - reading.problems.length} more faulty lines in ${SUMS_PATH}.`);
  }
  for (const file of reading.dropped.first) problems.push(`${file} is listed in ${SUMS_PATH} but missing.`);
  if (reading.dropped.count > reading.dropped.first.length) {
    const more = reading.dropped.count - reading.dropped.first.length;
    problems.push(`… and ${more} more files listed in ${SUMS_PATH} are missing.`);
  }
  return reading.sums;
}

/**
 * The check of each file SHA256SUMS lists, in order: its checksum, then a catalogue page's links, or a document's
 * links and validation; `finish` adds the cross-document findings and tells the source's faults from the rest.
 */
class TreeCheck {
  documents = 0;
  links = 0;
  readonly #findings: Finding[] = [];
  /** Documents changed after the crawl, by URL: their findings are the change's, not the source's. */
  readonly #changed = new Set<string>();
  /** Catalogue record pages checked so far, by the record they are for (docs/catalogue.md). */
  readonly #recordPages = new Map<string, string>();
  readonly #invariants: InvariantChecker;
  readonly #collections: CollectionRecords;
  readonly #targets: LinkTargets;
  readonly #recorded: RecordedFindings;

  constructor(
    private readonly dir: string,
    private readonly layout: Layout,
    private readonly files: ReadonlyMap<string, number>,
    private readonly sums: ReadonlyMap<string, string>,
    manifest: Manifest,
    private readonly problems: string[],
  ) {
    this.#invariants = new InvariantChecker(layout.root, layout.urls);
    this.#collections = new CollectionRecords(layout);
    this.#targets = new LinkTargets(layout, manifest.options);
    this.#recorded = new RecordedFindings(dir);
  }

  /** Checks `file`, whose SHA-256 SHA256SUMS gives as `expected`. */
  file(file: string, expected: string): void {
    const { layout, problems } = this;
    let read;
    try {
      read = readTreeFile(path.join(this.dir, ...file.split('/')));
    } catch (error) {
      const why =
        error instanceof NotRegularFileError ? `is now ${error.kind}` : `cannot be read (${firstLine(error)})`;
      problems.push(`${file} ${why}.`);
      return;
    }
    const url = isDocumentFile(file, layout) ? layout.sourceUrlOfServedPath(layout.servedPathOfFile(file)) : null;
    if (read.sha256 !== expected) {
      problems.push(
        `${file} was changed after the crawl: its SHA-256 is ${read.sha256}, but ${SUMS_PATH} says ${expected}. ` +
          'Restore it, or crawl again.',
      );
      if (url !== null) this.#changed.add(url);
    }
    if (url === null) {
      if (file.endsWith('.html') && file !== '404.html' && read.bytes !== null) {
        this.#page(file, read.bytes.toString('utf8'));
      }
      return;
    }
    if (read.bytes === null) {
      problems.push(`${file} is larger than ${MAX_DOCUMENT_BYTES} bytes, too large to check as a document.`);
      return;
    }
    let json: unknown;
    try {
      json = parseJson(read.bytes.toString('utf8'));
    } catch (error) {
      if (this.#changed.has(url)) return;
      const why =
        error instanceof JsonTooDeepError
          ? `cannot be checked: ${error.message}`
          : `is not valid JSON (${firstLine(error)})`;
      problems.push(`${file} ${why}.`);
      return;
    }
    this.#document(file, url, json);
  }

  /** A catalogue page: its links resolve inside the snapshot, and a record page is the one for its record. */
  #page(file: string, html: string): void {
    const broken = brokenCatalogueLinks(file, html, this.sums);
    if (broken.length > 0) {
      this.problems.push(
        `${file} links to ${broken.slice(0, 3).join(', ')}` +
          `${broken.length > 3 ? ` and ${broken.length - 3} more` : ''}, ` +
          'which the snapshot does not hold. Rebuild the catalogue, or crawl again.',
      );
    }
    if (isRecordPage(file)) {
      const wrong = recordPageProblem(file, html, this.#recordPages);
      if (wrong !== null) this.problems.push(printable(wrong));
    }
  }

  /** A document of the API: every link resolves to a file (or the report says why not), and it validates. */
  #document(file: string, url: string, json: unknown): void {
    const { layout } = this;
    this.documents += 1;
    const location = layout.urls.locate(url);
    visitLinks(json, location.kind === 'root', (link) => {
      this.links += 1;
      const target = this.#targets.file(link, url);
      const source = this.#targets.source(link);
      const explained = this.#recorded.explainsMissing(source ?? canonicalOrSelf(link, url));
      if (
        !explained &&
        !this.#changed.has(url) &&
        (target === undefined || (target !== null && !this.files.has(target)))
      ) {
        this.problems.push(`${file} links to ${link}, which is not a file of the snapshot.`);
      }
      return source;
    });
    const check = validateDocument(json, url, layout.root, layout.urls);
    if (layout.isCollectionIndexFile(file) && location.kind === 'list') {
      this.#collections.hold(location.collection, check.findings);
    } else {
      this.#findings.push(...check.findings);
      this.#invariants.add(url, check.summary);
      this.#collections.addPage(location, json);
    }
  }

  /**
   * Adds the findings of complete collections and the cross-document ones; the validation errors the report does
   * not explain are problems.
   */
  finish(): { findings: Finding[]; recordedErrors: number } {
    const findings = this.#findings;
    // A complete collection's findings are its pages' findings, moved: each counts once, where the crawl saw it.
    const seen = new Set(findings.map(findingKey));
    findings.push(...this.#collections.placed().filter((f) => !seen.has(findingKey(f))));
    findings.push(...this.#invariants.finish());
    const errors = findings.filter((f) => f.severity === 'error');
    // Findings in a changed document are the change's: its problem is that it was changed, said above.
    const unexplained = errors.filter((f) => !this.#recorded.explains(f) && !this.#changed.has(f.url));
    for (const finding of unexplained.slice(0, LISTED_ERRORS)) {
      const at = finding.pointer ? ` at ${finding.pointer}` : '';
      this.problems.push(`${finding.url}${at} breaks ${finding.rule}: ${finding.message}`);
    }
    if (unexplained.length > LISTED_ERRORS) {
      this.problems.push(`… and ${unexplained.length - LISTED_ERRORS} more validation errors.`);
    }
    const ofChanged = errors.filter((f) => !this.#recorded.explains(f) && this.#changed.has(f.url)).length;
    return { findings, recordedErrors: errors.length - unexplained.length - ofChanged };
  }
}

function canonicalOrSelf(link: string, base: string): string {
  try {
    return canonicalUrl(link, base);
  } catch {
    return link;
  }
}
