/**
 * What happens to each fetched document: validated, placed in the tree, its links rewritten, written, and recorded
 * in the journal (findings first, then the document, so a replay sees them in that order).
 *
 * The first part, `prepareDocument`, needs only the document and the run's fixed settings, so it runs on the main
 * thread or in a worker thread (document-pool.ts) alike; `storeDocument` journals what it made, on the main thread.
 */
import type { CrawledDocument } from '../crawl/crawler.js';
import type { DocumentLink } from '../jsonapi/links.js';
import type { Layout } from '../format/layout.js';
import { rewriteDocumentLinks, type LinkRewriter } from '../format/rewrite-links.js';
import { htmlSafeJson } from '../json/html-safe.js';
import { duplicateMembers, stringifyJson } from '../json/parse-json.js';
import { recodedBody } from '../crawl/read-document.js';
import type { ApiLocation } from '../url/api-location.js';
import type { JournalEntry } from '../store/journal.js';
import { FileCollisionError, sha256, type TreeWriter } from '../store/writer.js';
import type { Finding } from '../validate/finding.js';
import { validateDocument, type DocumentSummary } from '../validate/validate-document.js';
import { finding, jsonPointer } from '../validate/rules.js';

/** What writing a document needs: the run's fixed settings, the same on every thread. */
export interface DocumentContext {
  root: string;
  layout: Layout;
  rewriter: LinkRewriter | undefined;
  writer: TreeWriter;
  /** A resumed crawl may rewrite a file that the interrupted run wrote but did not journal. */
  resuming: boolean;
}

/** A document validated and written: what its journal lines need. */
export interface PreparedDocument {
  /** Validation findings, then any reason it was not stored, in journal order. */
  findings: Finding[];
  summary: DocumentSummary;
  records: number | null;
  /** The file written; null when the layout refused the URL or its path was taken. */
  file: { path: string; size: number; sha256: string } | null;
  /** A relationship document whose `data` is null: the relationship leads nowhere (RunState.leadingNowhere). */
  leadsNowhere: boolean;
}

export interface DocumentStore extends DocumentContext {
  /** Journals an entry; `location` is where the entry's URL sits in the API. */
  record: (entry: JournalEntry, location?: ApiLocation) => void;
}

/**
 * Validates `json` (fetched from the canonical `url`), rewrites its links (`links`, as `resolveLinks` gives them)
 * and writes it into the tree.
 */
export function prepareDocument(
  { root, layout, rewriter, writer, resuming }: DocumentContext,
  url: string,
  location: ApiLocation,
  json: unknown,
  links: readonly DocumentLink[],
): PreparedDocument {
  const check = validateDocument(json, url, root, layout.urls);
  const findings = [...readingFindings(url, json), ...check.findings];
  // Any JSON value may come (`null` included); what it is not is the validation's to report.
  const data = (json as { data?: unknown } | null)?.data;
  const prepared: PreparedDocument = {
    findings,
    summary: check.summary,
    records: location.kind === 'list' && Array.isArray(data) ? data.length : null,
    file: null,
    leadsNowhere: location.kind === 'relationship' && data === null,
  };
  const placement = layout.place(url);
  if (!placement.ok) {
    findings.push({
      url,
      pointer: '',
      rule: 'layout.refused',
      severity: 'error',
      message: `${url} was not stored: ${placement.reason}.`,
    });
    return prepared;
  }
  rewriteDocumentLinks(links, location, url, rewriter);
  try {
    const written = writer.write(placement.file, htmlSafeJson(stringifyJson(json)), { exclusive: !resuming });
    prepared.file = { path: placement.file, ...written };
  } catch (error) {
    if (!(error instanceof FileCollisionError)) throw error;
    findings.push({
      url,
      pointer: '',
      rule: 'layout.collision',
      severity: 'error',
      message: `${url} was not stored: ${error.message}`,
    });
  }
  return prepared;
}

/** Source text in a message: a value's JSON text, cut short. */
function quoted(text: string): string {
  return text.length <= 60 ? text : `${text.slice(0, 57)}...`;
}

/**
 * What reading the body changed that no stored document can show (docs/safety.md#faithful): a member name given
 * twice in one object, of which the document keeps the last value, and a body not sent as UTF-8 without a byte
 * order mark, whose text is stored in UTF-8.
 */
function readingFindings(url: string, json: unknown): Finding[] {
  const findings = duplicateMembers(json).map(({ path, values }) =>
    finding(
      url,
      jsonPointer(path),
      'json.duplicate',
      `The member ${JSON.stringify(path.at(-1))} is given ${values.length} times in one object ` +
        `(${values.map(quoted).join(', ')}); the snapshot keeps only the last, ${quoted(values.at(-1)!)}, as ` +
        `JSON.parse does, so it does not say what the source said.`,
    ),
  );
  const recoded = recodedBody(json);
  if (recoded !== undefined) {
    findings.push(
      finding(url, '', 'json.encoding', `The body was sent ${recoded}; the snapshot stores the same text in UTF-8.`),
    );
  }
  return findings;
}

/**
 * Journals a document: prepared here from its JSON, or already prepared by a worker thread (whose file the main
 * thread's writer then lists for SHA256SUMS).
 */
export function storeDocument(store: DocumentStore, document: CrawledDocument): void {
  const { url, location, response, discovered } = document;
  let prepared = document.prepared as PreparedDocument | undefined;
  // The root index's content identifies the source's state for --resume; hashed before its links are rewritten.
  const rootHash = location.kind === 'root' ? sourceHash(document.json) : undefined;
  if (prepared === undefined) {
    prepared = prepareDocument(store, url, location, document.json, document.links);
  } else if (prepared.file !== null) {
    store.writer.record(prepared.file.path, prepared.file.sha256);
  }
  for (const finding of prepared.findings) store.record({ t: 'finding', finding });
  store.record(
    {
      t: 'doc',
      url,
      file: prepared.file,
      summary: prepared.summary,
      records: prepared.records,
      ...(prepared.leadsNowhere && prepared.file !== null ? { leadsNowhere: true as const } : {}),
      discovered,
      ...(location.kind === 'root'
        ? {
            source: {
              etag: response.headers.etag ?? null,
              lastModified: response.headers['last-modified'] ?? null,
              ...(rootHash !== undefined ? { sha256: rootHash } : {}),
            },
          }
        : {}),
    },
    location,
  );
}

/** SHA-256 of a parsed document as the snapshot writes it back: what --resume compares the source's root with. */
export function sourceHash(json: unknown): string | undefined {
  return json === undefined ? undefined : sha256(stringifyJson(json));
}
