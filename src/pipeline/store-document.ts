/**
 * What happens to each fetched document: validated, placed in the tree, its links rewritten, written, and recorded
 * in the journal (findings first, then the document, so a replay sees them in that order).
 */
import type { CrawledDocument } from '../crawl/crawler.js';
import type { Layout } from '../format/layout.js';
import { rewriteDocumentLinks, type LinkRewriter } from '../format/rewrite-links.js';
import { stringifyJson } from '../json/parse-json.js';
import type { JournalEntry } from '../store/journal.js';
import { FileCollisionError, type TreeWriter } from '../store/writer.js';
import { validateDocument } from '../validate/validate-document.js';

export interface DocumentStore {
  root: string;
  layout: Layout;
  rewriter: LinkRewriter | undefined;
  writer: TreeWriter;
  /** A resumed crawl may rewrite a file that the interrupted run wrote but did not journal. */
  resuming: boolean;
  record: (entry: JournalEntry) => void;
}

export function storeDocument(
  { root, layout, rewriter, writer, resuming, record }: DocumentStore,
  { url, location, response, json, discovered }: CrawledDocument,
): void {
  const check = validateDocument(json, url, root, layout.urls);
  for (const finding of check.findings) record({ t: 'finding', finding });
  const data = (json as { data?: unknown }).data;
  const entry: JournalEntry = {
    t: 'doc',
    url,
    file: null,
    summary: check.summary,
    records: location.kind === 'list' && Array.isArray(data) ? data.length : null,
    discovered,
    ...(location.kind === 'root'
      ? { source: { etag: response.headers.etag ?? null, lastModified: response.headers['last-modified'] ?? null } }
      : {}),
  };
  const placement = layout.place(url);
  if (!placement.ok) {
    record({
      t: 'finding',
      finding: {
        url,
        pointer: '',
        rule: 'layout.refused',
        severity: 'error',
        message: `${url} was not stored: ${placement.reason}.`,
      },
    });
    record(entry);
    return;
  }
  rewriteDocumentLinks(json, location, url, rewriter);
  try {
    const written = writer.write(placement.file, stringifyJson(json), { exclusive: !resuming });
    entry.file = { path: placement.file, ...written };
  } catch (error) {
    if (!(error instanceof FileCollisionError)) throw error;
    record({
      t: 'finding',
      finding: {
        url,
        pointer: '',
        rule: 'layout.collision',
        severity: 'error',
        message: `${url} was not stored: ${error.message}`,
      },
    });
  }
  record(entry);
}
