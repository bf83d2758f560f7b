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
import type { ParsedUrl } from '../url/url-space.js';
import type { Finding } from '../validate/finding.js';
import { InvariantChecker } from '../validate/invariants.js';
import { validateDocument } from '../validate/validate-document.js';
import { isRecordPage, recordPageProblem } from '../catalogue/names.js';
import { INDEX_FILE, Layout, TOP_LEVEL_FILES } from '../format/layout.js';
import { REPORT_PATH, SUMS_PATH, type Manifest } from '../format/manifest.js';
import {
  firstLine,
  NotRegularFileError,
  openRegularFile,
  readSnapshotFile,
  readSnapshotManifest,
  readSums,
  walkTree,
} from '../format/read-snapshot.js';
import { sha256 } from '../store/writer.js';
import { linkPrefix } from '../format/rewrite-links.js';
import { CollectionRecords } from './collection-records.js';
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

/** Crawl findings that name a URL the snapshot has no file for, on purpose. */
const UNSTORED_RULES = new Set([
  'link.dead',
  'link.redirect',
  'layout.refused',
  'layout.collision',
  'fetch.failed',
  'pagination.runaway',
  'scope.redirect',
]);

/** Unexplained validation errors listed one by one; the rest are counted. */
const LISTED_ERRORS = 20;
/** Files listed in SHA256SUMS but missing, named one by one; the rest are counted. */
const NAMED_MISSING = 1000;
/** A document larger than this is hashed but not parsed: it could not become one string (V8's limit is ~512 MiB). */
const MAX_DOCUMENT_BYTES = 500 << 20;
/** The report is read whole; crawl keeps it small (at most 1,000 findings per rule). */
const MAX_REPORT_BYTES = 256 << 20;
/** A problem is one line of a terminal or two, whatever a document put in it. */
const MAX_PROBLEM_CHARS = 1000;
/** Files checked between two turns of the event loop. */
const FILES_PER_TURN = 64;

const findingKey = (f: Pick<Finding, 'url' | 'pointer' | 'rule'>) => `${f.url}\u0000${f.pointer}\u0000${f.rule}`;

function isRecordedFinding(value: unknown): value is Finding {
  if (typeof value !== 'object' || value === null) return false;
  const f = value as Record<string, unknown>;
  return typeof f.url === 'string' && typeof f.pointer === 'string' && typeof f.rule === 'string';
}

/**
 * The findings the crawl recorded, and the rules whose findings the report lists only in part (it lists at most
 * `findingsListedPerRule` of each); none when the report cannot be read (then everything counts).
 */
function recordedFindings(dir: string): { findings: Finding[]; partlyListed: Set<string> } {
  try {
    const report = parseJson(readSnapshotFile(dir, REPORT_PATH, MAX_REPORT_BYTES).toString('utf8')) as {
      findings?: unknown;
      rules?: unknown;
    };
    const rules = typeof report?.rules === 'object' && report.rules !== null ? report.rules : {};
    const partlyListed = new Set(
      Object.entries(rules as Record<string, unknown>)
        .filter(([, counts]) => {
          const omitted = (counts as { omitted?: unknown } | null)?.omitted;
          return typeof omitted === 'number' && omitted > 0;
        })
        .map(([rule]) => rule),
    );
    const findings = Array.isArray(report?.findings) ? report.findings.filter(isRecordedFinding) : [];
    return { findings, partlyListed };
  } catch {
    return { findings: [], partlyListed: new Set() };
  }
}

function isDocumentFile(file: string, layout: Layout): boolean {
  // Below a root path, a top-level index.html is the catalogue's front page, not a document.
  if (file === INDEX_FILE && layout.rootSegments().length > 0) return false;
  return !(TOP_LEVEL_FILES as readonly string[]).includes(file.split('/')[0]!);
}

/** The relative links (href, src) of a catalogue page that do not resolve to a file listed in SHA256SUMS. */
function brokenCatalogueLinks(file: string, html: string, sums: Map<string, string>): string[] {
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
  for (const [file, kind] of [...specials].sort(([a], [b]) => byCodeUnits(a, b))) {
    problems.push(`${file} is ${kind}; a snapshot holds only regular files and directories, so it was not read.`);
  }

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
  const { sums } = reading;
  problems.push(...reading.problems);
  if (reading.problemCount > reading.problems.length) {
    problems.push(`… and ${reading.problemCount - reading.problems.length} more faulty lines in ${SUMS_PATH}.`);
  }
  for (const file of reading.dropped.first) problems.push(`${file} is listed in ${SUMS_PATH} but missing.`);
  if (reading.dropped.count > reading.dropped.first.length) {
    const more = reading.dropped.count - reading.dropped.first.length;
    problems.push(`… and ${more} more files listed in ${SUMS_PATH} are missing.`);
  }
  const sorted = [...files.keys()].sort();
  for (const file of sorted) {
    if (!sums.has(file)) problems.push(`${file} is not part of the snapshot (not in ${SUMS_PATH}).`);
  }

  const recorded = recordedFindings(dir);
  const recordedKeys = new Set(recorded.findings.map(findingKey));
  const unstored = new Set(recorded.findings.filter((f) => UNSTORED_RULES.has(f.rule)).map((f) => f.url));
  // A rule the report lists only in part explains every finding of its kind: the report cannot say which others
  // there were. For a rule that names documents the snapshot has no file for, that is every link to a missing file.
  const isRecorded = (f: Finding): boolean => recordedKeys.has(findingKey(f)) || recorded.partlyListed.has(f.rule);
  const unstoredPartlyListed = [...recorded.partlyListed].some((rule) => UNSTORED_RULES.has(rule));

  const { links: mode, baseUrl } = manifest.options;
  const prefix = linkPrefix(mode as 'relative' | 'absolute' | 'original', baseUrl ?? undefined);
  // Where a link of the snapshot points: a file of the snapshot, or null when it points outside the snapshot.
  const targetFile = (link: string, documentUrl: string): string | null | undefined => {
    if (mode === 'original') {
      let target: ParsedUrl;
      try {
        target = layout.urls.resolve(link, documentUrl);
      } catch {
        return undefined;
      }
      if (!target.inScope) return null;
      const location = target.location;
      if (location.kind === 'list' && location.page === 1) return layout.collectionIndex(location.collection).file;
      const placement = layout.place(target.url);
      return placement.ok ? placement.file : undefined;
    }
    if (!link.startsWith(prefix)) return null;
    return layout.fileOfServedPath(`/${link.slice(prefix.length)}`) ?? undefined;
  };
  // The source form of a link, for validation: what the link stood for before it was rewritten.
  const sourceLink = (link: string): string | undefined => {
    if (mode === 'original' || !link.startsWith(prefix)) return undefined;
    return layout.sourceUrlOfServedPath(`/${link.slice(prefix.length)}`);
  };

  const invariants = new InvariantChecker(layout.root, layout.urls);
  const collections = new CollectionRecords(layout);
  const findings: Finding[] = [];
  /** Documents changed after the crawl, by URL: their findings are the change's, not the source's. */
  const changed = new Set<string>();
  let documents = 0;
  let linkCount = 0;
  let checked = 0;
  /** Catalogue record pages checked so far, by the record they are for (docs/catalogue.md). */
  const recordPages = new Map<string, string>();
  for (const file of sorted) {
    if (++checked % FILES_PER_TURN === 0) {
      await nextTurn();
      throwIfStopped(signal);
    }
    const expected = sums.get(file);
    if (expected === undefined) continue;
    let read;
    try {
      read = readTreeFile(path.join(dir, ...file.split('/')));
    } catch (error) {
      const why =
        error instanceof NotRegularFileError ? `is now ${error.kind}` : `cannot be read (${firstLine(error)})`;
      problems.push(`${file} ${why}.`);
      continue;
    }
    const url = isDocumentFile(file, layout) ? layout.sourceUrlOfServedPath(layout.servedPathOfFile(file)) : null;
    if (read.sha256 !== expected) {
      problems.push(
        `${file} was changed after the crawl: its SHA-256 is ${read.sha256}, but ${SUMS_PATH} says ${expected}. ` +
          'Restore it, or crawl again.',
      );
      if (url !== null) changed.add(url);
    }
    if (url === null && file.endsWith('.html') && file !== '404.html' && read.bytes !== null) {
      const broken = brokenCatalogueLinks(file, read.bytes.toString('utf8'), sums);
      if (broken.length > 0) {
        problems.push(
          `${file} links to ${broken.slice(0, 3).join(', ')}` +
            `${broken.length > 3 ? ` and ${broken.length - 3} more` : ''}, ` +
            'which the snapshot does not hold. Rebuild the catalogue, or crawl again.',
        );
      }
      if (isRecordPage(file)) {
        const wrong = recordPageProblem(file, read.bytes.toString('utf8'), recordPages);
        if (wrong !== null) problems.push(printable(wrong));
      }
    }
    if (url === null) continue;
    if (read.bytes === null) {
      problems.push(`${file} is larger than ${MAX_DOCUMENT_BYTES} bytes, too large to check as a document.`);
      continue;
    }
    let json: unknown;
    try {
      json = parseJson(read.bytes.toString('utf8'));
    } catch (error) {
      if (changed.has(url)) continue;
      const why =
        error instanceof JsonTooDeepError
          ? `cannot be checked: ${error.message}`
          : `is not valid JSON (${firstLine(error)})`;
      problems.push(`${file} ${why}.`);
      continue;
    }
    documents += 1;
    const location = layout.urls.locate(url);
    visitLinks(json, location.kind === 'root', (link) => {
      linkCount += 1;
      const target = targetFile(link, url);
      const source = sourceLink(link);
      const explained = unstoredPartlyListed || unstored.has(source ?? canonicalOrSelf(link, url));
      if (!explained && !changed.has(url) && (target === undefined || (target !== null && !files.has(target)))) {
        problems.push(`${file} links to ${link}, which is not a file of the snapshot.`);
      }
      return source;
    });
    const check = validateDocument(json, url, layout.root, layout.urls);
    if (layout.isCollectionIndexFile(file) && location.kind === 'list') {
      collections.hold(location.collection, check.findings);
    } else {
      findings.push(...check.findings);
      invariants.add(url, check.summary);
      collections.addPage(location, json);
    }
  }
  throwIfStopped(signal);
  // A complete collection's findings are its pages' findings, moved: each counts once, where the crawl saw it.
  const seen = new Set(findings.map(findingKey));
  findings.push(...collections.placed().filter((f) => !seen.has(findingKey(f))));
  findings.push(...invariants.finish());
  const errors = findings.filter((f) => f.severity === 'error');
  // Findings in a changed document are the change's: its problem is that it was changed, said above.
  const unexplained = errors.filter((f) => !isRecorded(f) && !changed.has(f.url));
  for (const finding of unexplained.slice(0, LISTED_ERRORS)) {
    const at = finding.pointer ? ` at ${finding.pointer}` : '';
    problems.push(`${finding.url}${at} breaks ${finding.rule}: ${finding.message}`);
  }
  if (unexplained.length > LISTED_ERRORS) {
    problems.push(`… and ${unexplained.length - LISTED_ERRORS} more validation errors.`);
  }
  const ofChanged = errors.filter((f) => !isRecorded(f) && changed.has(f.url)).length;
  return {
    manifest,
    files: files.size,
    documents,
    links: linkCount,
    problems: problems.map(safe),
    findings,
    recordedErrors: errors.length - unexplained.length - ofChanged,
  };
}

function canonicalOrSelf(link: string, base: string): string {
  try {
    return canonicalUrl(link, base);
  } catch {
    return link;
  }
}
