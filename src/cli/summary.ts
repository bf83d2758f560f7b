/** The closing summary of a crawl: a table per collection, or the same figures as JSON for scripts. */
import type { DeriveManifest } from '../format/derive-manifest.js';
import { shiftedSentence } from '../format/partial.js';
import type { ChangesSincePrevious, SnapshotResult } from '../pipeline/snapshot-options.js';
import { plural } from '../util/plural.js';

export function summaryJson(result: SnapshotResult): string {
  return `${JSON.stringify(
    {
      out: result.out,
      root: result.root,
      documents: result.documents,
      requests: result.requests,
      retries: result.retries,
      seconds: Number((result.elapsedMs / 1000).toFixed(3)),
      resumed: result.resumed,
      partial: result.missing.length > 0 || result.shifted.length > 0,
      missing: result.missing,
      shifted: result.shifted,
      validation: { errors: result.report.errors, warnings: result.report.warnings },
      collections: result.collections,
      cpu: cpuSummary(result),
      unusedNames: result.unusedNames,
      ...(result.derive ? { derive: result.derive } : {}),
    },
    null,
    2,
  )}\n`;
}

/** The process's CPU time in whole milliseconds, per document in microseconds, and by phase (phases.ts). */
function cpuSummary(result: SnapshotResult) {
  const ms = Math.round(result.cpu.totalMs);
  return { ms, perDocumentUs: Math.round((ms * 1000) / Math.max(result.documents, 1)), phases: result.cpu.phases };
}

/** What a derived crawl derived and fetched, in one sentence (the manifest has the account per kind). */
function deriveLine(derive: DeriveManifest): string {
  const differed =
    derive.mismatches > 0
      ? `; ${plural(derive.mismatches, 'sample')} differed from the derivation, so ` +
        'their kinds were fetched in full (see the report)'
      : '';
  return (
    `Derived ${derive.derived} documents and fetched ${derive.fetched} below the records, in ` +
    `${derive.requests} requests (sample ${derive.sample}, seed ${derive.seed}${differed}).`
  );
}

/**
 * The documents the crawl stored and those the snapshot holds, in one sentence: besides what the crawl read, the
 * snapshot holds each collection's list as one document, built from its pages (what verify and serve count too).
 */
function documentsLine(result: SnapshotResult): string {
  const seconds = result.elapsedMs / 1000;
  const built = Object.values(result.collections).filter((c) => c.pages > 0).length;
  const crawled =
    `${plural(result.documents, 'document')} crawled in ${seconds.toFixed(1)} s ` +
    `(${(result.requests / Math.max(seconds, 0.001)).toFixed(0)} req/s, ${result.retries} retries` +
    `${result.resumed > 0 ? `; ${result.resumed} taken from the interrupted run` : ''}).`;
  if (built === 0) return crawled;
  return (
    `${crawled}\nThe snapshot holds ${plural(result.documents + built, 'document')}: those and the ` +
    `${plural(built, 'collection list')} built from their pages.`
  );
}

/**
 * What changed since the snapshot --out held, from the comparison the catalogue's Changes page shows; nothing after
 * a first crawl into --out.
 */
function changesLine(changes: ChangesSincePrevious | null): string | null {
  if (changes === null) return null;
  if (changes.against === null) {
    return 'Changes: none listed, since what --out held before cannot be read as a snapshot.';
  }
  const since = `since the previous snapshot (${changes.against.createdAt})`;
  if (changes.identical) return `Changes ${since}: none, the same records.`;
  const { records } = changes.summary;
  return (
    `Changes ${since}: ${plural(records.added, 'record')} added, ${records.removed} removed, ${records.changed} ` +
    'changed.'
  );
}

export function summaryTable(result: SnapshotResult): string {
  const rows = Object.entries(result.collections).map(([name, c]) => [
    name,
    String(c.records),
    String(c.pages),
    String(c.documents),
  ]);
  const total = Object.values(result.collections).reduce(
    (sum, c) => ({ records: sum.records + c.records, pages: sum.pages + c.pages }),
    { records: 0, pages: 0 },
  );
  rows.push(['total', String(total.records), String(total.pages), String(result.documents)]);
  const header = ['collection', 'records', 'pages', 'documents'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const changes = changesLine(result.changes);
  return [
    line(header),
    ...rows.slice(0, -1).map(line),
    widths.map((w) => '-'.repeat(w)).join('  '),
    line(rows.at(-1)!),
    '',
    `Snapshot of ${result.root} written to ${result.out}`,
    documentsLine(result),
    ...(result.derive ? [deriveLine(result.derive)] : []),
    ...(result.missing.length > 0
      ? [
          `PARTIAL: ${plural(result.missing.length, 'document')} could not be fetched ` +
            `(listed in the manifest), for example ${result.missing[0]}.`,
        ]
      : []),
    ...(result.shifted.length > 0 ? [`PARTIAL: ${shiftedSentence(result.shifted)}`] : []),
    result.summary.trimEnd(),
    ...(changes === null ? [] : [changes]),
    '',
  ].join('\n');
}
