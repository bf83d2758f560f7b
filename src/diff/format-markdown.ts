/**
 * `diff --format md`: the changes as release notes. A summary table first, then one section per changed collection,
 * most important first: collections removed, then added, then by records removed (they break the URIs clients
 * store), status changes (terms accepted), records added, renames and other changes, ties by name. Inside a
 * section the same order: removed, status changes, added, renamed, changed.
 */
import type {
  AttributeChange,
  CollectionDiff,
  Identifier,
  Linkage,
  RecordRef,
  RelationshipChange,
  SnapshotDiff,
} from './diff-format.js';

/** Text safe inside a Markdown table cell or list item: no pipes, emphasis or HTML taken literally. */
function escapeText(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`).replace(/\r?\n|\r/g, ' ');
}

/** A value in a code span, with whitespace made visible; null, empty and absent spelled out in italics. */
function value(v: unknown, present = true): string {
  if (!present) return '*absent*';
  if (v === null) return '*null*';
  if (v === '') return '*empty*';
  const text = (typeof v === 'string' ? v : JSON.stringify(v))
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t');
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${fence === '``' ? ` ${text} ` : text}${fence}`;
}

function named(ref: { type: string; id: string; label: string | null }): string {
  const identity = `${ref.type} ${ref.id}`;
  return ref.label === null || ref.label === '' ? identity : `**${escapeText(ref.label)}** (${identity})`;
}

function targetsText(targets: Identifier[]): string {
  return targets.map((t) => `${t.type} ${t.id}`).join(', ');
}

function linkageText(linkage: Linkage | undefined): string {
  if (linkage === undefined) return '*absent*';
  if (linkage === null) return '*none*';
  if (Array.isArray(linkage)) return linkage.length === 0 ? '*none*' : targetsText(linkage);
  return `${linkage.type} ${linkage.id}`;
}

function attributeLine(change: AttributeChange): string {
  return `  - \`${change.name}\`: ${value(change.old, 'old' in change)} → ${value(change.new, 'new' in change)}`;
}

function relationshipLine(change: RelationshipChange): string {
  const toMany = Array.isArray(change.old) || Array.isArray(change.new);
  if (toMany && change.added.length + change.removed.length > 0) {
    const parts = [];
    if (change.added.length > 0) parts.push(`added ${targetsText(change.added)}`);
    if (change.removed.length > 0) parts.push(`removed ${targetsText(change.removed)}`);
    return `  - \`${change.name}\`: ${parts.join('; ')}`;
  }
  return `  - \`${change.name}\`: ${linkageText(change.old)} → ${linkageText(change.new)}`;
}

function recordTable(records: RecordRef[]): string[] {
  const withStatus = records.some((r) => r.status !== null);
  const lines = [
    withStatus ? '| type | id | term | status |' : '| type | id | term |',
    withStatus ? '|---|--:|---|---|' : '|---|--:|---|',
  ];
  for (const r of records) {
    const cells = [r.type, r.id, r.label === null ? '*none*' : escapeText(r.label)];
    if (withStatus) cells.push(r.status ?? '');
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}

const countsText = (c: CollectionDiff): string => `${c.records.old ?? '–'} → ${c.records.new ?? '–'} records`;

function section(c: CollectionDiff): string[] {
  const lines = [`## ${escapeText(c.name)}`, ''];
  if (c.change === 'added')
    return [...lines, `New collection with ${c.records.new ?? 0} records (listed in --format json).`, ''];
  if (c.change === 'removed')
    return [...lines, `Collection removed; it held ${c.records.old ?? 0} records (listed in --format json).`, ''];
  lines.push(`${countsText(c)}.`, '');
  if (c.removed.length > 0) lines.push(`### Removed (${c.removed.length})`, '', ...recordTable(c.removed), '');
  if (c.statusChanges.length > 0) {
    lines.push(`### Status changes (${c.statusChanges.length})`, '');
    for (const s of c.statusChanges) lines.push(`- ${named(s)}: ${value(s.old)} → ${value(s.new)}`);
    lines.push('');
  }
  if (c.added.length > 0) lines.push(`### Added (${c.added.length})`, '', ...recordTable(c.added), '');
  if (c.renamed.length > 0) {
    lines.push(`### Renamed (${c.renamed.length})`, '');
    for (const r of c.renamed) lines.push(`- ${r.type} ${r.id}: ${value(r.old)} → ${value(r.new)}`);
    lines.push('');
  }
  if (c.changed.length > 0) {
    lines.push(`### Changed (${c.changed.length})`, '');
    for (const record of c.changed) {
      lines.push(
        `- ${named(record)}`,
        ...record.attributes.map(attributeLine),
        ...record.relationships.map(relationshipLine),
      );
    }
    lines.push('');
  }
  return lines;
}

/** Sort key, most important first (see the module comment). */
function importance(c: CollectionDiff): number[] {
  return [
    c.change === 'removed' ? 1 : 0,
    c.change === 'added' ? 1 : 0,
    c.removed.length,
    c.statusChanges.length,
    c.added.length,
    c.renamed.length,
    c.changed.length,
  ];
}

function byImportance(a: CollectionDiff, b: CollectionDiff): number {
  const [x, y] = [importance(a), importance(b)];
  for (let i = 0; i < x.length; i += 1) if (x[i] !== y[i]) return (y[i] ?? 0) - (x[i] ?? 0);
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function sourceLine(label: string, side: SnapshotDiff['old']): string {
  const state = [
    side.lastModified !== null ? `Last-Modified ${side.lastModified}` : null,
    side.etag !== null ? `ETag ${value(side.etag)}` : null,
  ].filter((s) => s !== null);
  return `- ${label}: ${value(side.root)}, recorded ${side.createdAt}${state.length > 0 ? ` (${state.join(', ')})` : ''}, ${side.records} records${side.partial ? ', **partial**' : ''}`;
}

export function formatDiffMarkdown(diff: SnapshotDiff): string {
  const lines = ['# Vocabulary changes', '', sourceLine('Old', diff.old), sourceLine('New', diff.new), ''];
  if (diff.identical) {
    lines.push(`No differences: the same ${diff.new.records} records in ${diff.collections.length} collections.`);
    return `${lines.join('\n')}\n`;
  }
  const { summary } = diff;
  lines.push(
    `${summary.records.added} added, ${summary.records.removed} removed, ${summary.records.changed} changed ` +
      `(${summary.statusChanges} status change${summary.statusChanges === 1 ? '' : 's'}, ${summary.renamed} renamed)` +
      `${summary.collections.added + summary.collections.removed > 0 ? `; ${summary.collections.added} collections added, ${summary.collections.removed} removed` : ''}.`,
    '',
    '| collection | records before | records after | added | removed | changed | status changes | renamed |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
  );
  const changed = diff.collections.filter((c) => c.change !== 'unchanged').sort(byImportance);
  for (const c of changed) {
    const cells = [
      escapeText(c.name),
      c.records.old ?? '–',
      c.records.new ?? '–',
      c.added.length,
      c.removed.length,
      c.changed.length,
      c.statusChanges.length,
      c.renamed.length,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push(
    `| **total** | ${diff.old.records} | ${diff.new.records} | ${summary.records.added} | ${summary.records.removed} | ${summary.records.changed} | ${summary.statusChanges} | ${summary.renamed} |`,
    '',
  );
  const unchanged = diff.collections.filter((c) => c.change === 'unchanged');
  if (unchanged.length > 0) lines.push(`Unchanged: ${unchanged.map((c) => escapeText(c.name)).join(', ')}.`, '');
  for (const c of changed) lines.push(...section(c));
  return `${lines.join('\n').trimEnd()}\n`;
}
