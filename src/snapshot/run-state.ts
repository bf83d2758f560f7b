/**
 * What a crawl has done so far, built from journal entries only: the same code path serves a live crawl (each
 * entry as it happens) and `--resume` (every entry of the journal replayed). Holds compact figures, never documents.
 */
import { locate } from '../url/api-location.js';
import type { Finding } from '../validate/finding.js';
import type { InvariantChecker } from '../validate/invariants.js';
import type { JournalEntry } from './journal.js';
import type { CollectionCounts } from './manifest.js';
import type { TreeWriter } from './writer.js';

export class RunState {
  readonly collections = new Map<string, CollectionCounts>();
  /** Page files of each collection, by page number. */
  readonly pageFiles = new Map<string, Map<number, string>>();
  readonly findings: Finding[] = [];
  private readonly findingKeys = new Set<string>();
  errors = 0;
  documents = 0;
  source: { etag: string | null; lastModified: string | null } = { etag: null, lastModified: null };
  readonly seen = new Set<string>();
  readonly settled = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly invariants: InvariantChecker,
    private readonly writer: TreeWriter,
  ) {
    this.seen.add(root);
  }

  addFinding(finding: Finding): void {
    // A document fetched again after an interruption reports its findings again.
    const key = `${finding.url}\u0000${finding.pointer}\u0000${finding.rule}\u0000${finding.message}`;
    if (this.findingKeys.has(key)) return;
    this.findingKeys.add(key);
    this.findings.push(finding);
    if (finding.severity === 'error') this.errors += 1;
  }

  apply(entry: JournalEntry): void {
    if (entry.t === 'finding') {
      this.addFinding(entry.finding);
      return;
    }
    this.settled.add(entry.url);
    for (const url of entry.discovered) this.seen.add(url);
    if (entry.t === 'settled') return;

    this.documents += 1;
    this.invariants.add(entry.url, entry.summary);
    if (entry.source) this.source = entry.source;
    if (entry.file === null) return;
    this.writer.record(entry.file.path, { size: entry.file.size, sha256: entry.file.sha256 });
    const location = locate(entry.url, this.root);
    if (location.kind === 'root' || location.kind === 'other') return;
    const counts = this.collections.get(location.collection) ?? { records: 0, pages: 0, documents: 0 };
    counts.documents += 1;
    if (location.kind === 'list') {
      counts.pages += 1;
      counts.records += entry.records ?? 0;
      const pages = this.pageFiles.get(location.collection) ?? new Map<number, string>();
      pages.set(location.page, entry.file.path);
      this.pageFiles.set(location.collection, pages);
    }
    this.collections.set(location.collection, counts);
  }

  /** URLs that could not be fetched (`--allow-partial`) and were not fetched later either, sorted. */
  missing(): string[] {
    const failed = this.findings.filter((f) => f.rule === 'fetch.failed' && !this.settled.has(f.url)).map((f) => f.url);
    return [...new Set(failed)].sort();
  }

  /** URLs known but not settled: what a resumed crawl fetches. */
  pending(): string[] {
    return [...this.seen].filter((url) => !this.settled.has(url)).sort();
  }
}
