/**
 * `verify` (DESIGN.md §3): offline, a snapshot is checked against itself — every file matches SHA256SUMS and no
 * file is missing or extra, every link in every document resolves to a file of the snapshot, and every document
 * validates against the schemas and cross-document rules.
 *
 * A faithful mirror keeps the source's own faults: what validation found at crawl time is in the report, so those
 * findings (and links to documents the report names as dead or unstorable) are counted, not failed; anything the
 * report does not explain is a problem.
 *
 * Each file is read once, synchronously (hash, then parse): many small files make asynchronous reads cost more
 * in thread-pool round trips than in I/O.
 */
import { readFileSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { CvSnapshotError, VerifyError } from '../errors.js';
import { visitLinks } from '../jsonapi/links.js';
import { locate } from '../url/api-location.js';
import { canonicalUrl, isInScope } from '../url/canonical-url.js';
import type { Finding } from '../validate/finding.js';
import { InvariantChecker } from '../validate/invariants.js';
import { validateDocument } from '../validate/validate-document.js';
import { Layout, TOP_LEVEL_FILES } from './layout.js';
import { parseSums, readManifest, REPORT_PATH, SUMS_PATH, unreadableSnapshot, type Manifest } from './manifest.js';
import { sha256 } from './writer.js';
import { linkPrefix } from './rewrite-links.js';

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

const findingKey = (f: Pick<Finding, 'url' | 'pointer' | 'rule'>) => `${f.url}\u0000${f.pointer}\u0000${f.rule}`;

/**
 * The findings the crawl recorded, and the rules whose findings the report lists only in part (it lists at most
 * `findingsListedPerRule` of each); none when the report cannot be read (then everything counts).
 */
async function recordedFindings(dir: string): Promise<{ findings: Finding[]; partlyListed: Set<string> }> {
  try {
    const report = JSON.parse(await readFile(path.join(dir, ...REPORT_PATH.split('/')), 'utf8')) as {
      findings?: Finding[];
      rules?: Record<string, { omitted?: unknown }>;
    };
    const partlyListed = new Set(
      Object.entries(report.rules ?? {})
        .filter(([, counts]) => typeof counts?.omitted === 'number' && counts.omitted > 0)
        .map(([rule]) => rule),
    );
    return { findings: Array.isArray(report.findings) ? report.findings : [], partlyListed };
  } catch {
    return { findings: [], partlyListed: new Set() };
  }
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await listFiles(path.join(dir, entry.name), rel)));
    else files.push(rel);
  }
  return files;
}

function isDocumentFile(file: string): boolean {
  return !(TOP_LEVEL_FILES as readonly string[]).includes(file.split('/')[0]!);
}

export async function verifySnapshot(dir: string): Promise<VerifyResult> {
  const problems: string[] = [];
  let manifest: Manifest;
  try {
    manifest = await readManifest(dir);
  } catch (error) {
    // Exit 1 (not a snapshot at all), as verify --help says; 3 is for a snapshot that fails its checks.
    throw new CvSnapshotError(unreadableSnapshot(dir, error));
  }
  const layout = new Layout(manifest.source.root);
  const files = new Set(await listFiles(dir));
  files.delete(SUMS_PATH);

  let sums: Map<string, string>;
  try {
    sums = parseSums(await readFile(path.join(dir, ...SUMS_PATH.split('/')), 'utf8'));
  } catch {
    throw new VerifyError(`${dir} has no ${SUMS_PATH}; the snapshot is incomplete. Crawl it again.`);
  }
  for (const file of [...sums.keys()].sort()) {
    if (!files.has(file)) problems.push(`${file} is listed in ${SUMS_PATH} but missing.`);
  }
  for (const file of [...files].sort()) {
    if (!sums.has(file)) problems.push(`${file} is not part of the snapshot (not in ${SUMS_PATH}).`);
  }
  const recorded = await recordedFindings(dir);
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
      let target: string;
      try {
        target = canonicalUrl(link, documentUrl);
      } catch {
        return undefined;
      }
      if (!isInScope(target, layout.root)) return null;
      const location = locate(target, layout.root);
      if (location.kind === 'list' && location.page === 1) return layout.collectionIndex(location.collection).file;
      const placement = layout.place(target);
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

  const invariants = new InvariantChecker(layout.root);
  const findings: Finding[] = [];
  let documents = 0;
  let linkCount = 0;
  for (const file of [...files].sort()) {
    const bytes = readFileSync(path.join(dir, ...file.split('/')));
    const expected = sums.get(file);
    if (expected !== undefined) {
      const actual = sha256(bytes);
      if (actual !== expected) problems.push(`${file} was changed: its SHA-256 is ${actual}, not ${expected}.`);
    }
    if (!isDocumentFile(file)) continue;
    const servedPath = layout.servedPathOfFile(file);
    const url = layout.sourceUrlOfServedPath(servedPath);
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      problems.push(`${file} is not valid JSON (${(error as Error).message}).`);
      continue;
    }
    documents += 1;
    const location = locate(url, layout.root);
    visitLinks(json, location.kind === 'root', (link) => {
      linkCount += 1;
      const target = targetFile(link, url);
      const source = sourceLink(link);
      const explained = unstoredPartlyListed || unstored.has(source ?? canonicalOrSelf(link, url));
      if (!explained && (target === undefined || (target !== null && !files.has(target)))) {
        problems.push(`${file} links to ${link}, which is not a file of the snapshot.`);
      }
      return source;
    });
    const check = validateDocument(json, url, layout.root);
    findings.push(...check.findings);
    if (!layout.isCollectionIndexFile(file)) invariants.add(url, check.summary);
  }
  findings.push(...invariants.finish());
  const errors = findings.filter((f) => f.severity === 'error');
  const unexplained = errors.filter((f) => !isRecorded(f));
  for (const finding of unexplained.slice(0, 20)) {
    problems.push(
      `${finding.url}${finding.pointer ? ` at ${finding.pointer}` : ''} breaks ${finding.rule}: ${finding.message}`,
    );
  }
  if (unexplained.length > 20) problems.push(`… and ${unexplained.length - 20} more validation errors.`);
  return {
    manifest,
    files: files.size,
    documents,
    links: linkCount,
    problems,
    findings,
    recordedErrors: errors.length - unexplained.length,
  };
}

function canonicalOrSelf(link: string, base: string): string {
  try {
    return canonicalUrl(link, base);
  } catch {
    return link;
  }
}
