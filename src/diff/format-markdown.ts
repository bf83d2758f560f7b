/**
 * `diff --format md`: the changes as release notes. A summary table first, then one section per changed collection,
 * most important first: collections removed, then added, then by records removed (they break the URIs clients
 * store), status changes (terms accepted), records added, renames and other changes, ties by name. Inside a
 * section the same order: removed, status changes, added, renamed, changed.
 */
import { printable } from '../util/safe-text.js';
import { memberText } from './exact-values.js';
import type {
  AttributeChange,
  CollectionDiff,
  Identifier,
  Linkage,
  RecordRef,
  RelationshipChange,
  SnapshotDiff,
} from './diff-format.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { plural } from '../util/plural.js';

/** Text safe inside a Markdown table cell or list item: no pipes, emphasis or HTML taken literally. */
function escapeText(text: string): string {
  // printable: a control character from a document (a terminal escape) is shown as \u001b, never sent as is.
  return printable(text.replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`).replace(/\r?\n|\r/g, ' '));
}

/**
 * A value in a code span, with whitespace made visible; null, empty and absent spelled out in italics. `json` is
 * its JSON text when it is not a string (numbers as the source wrote them).
 */
function value(v: unknown, present = true, json?: string): string {
  if (!present) return '*absent*';
  if (v === null) return '*null*';
  if (v === '') return '*empty*';
  const raw = typeof v === 'string' ? v : (json ?? JSON.stringify(v));
  const text = printable(raw.replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t'));
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${fence === '``' ? ` ${text} ` : text}${fence}`;
}

function named(ref: { type: string; id: string; label: string | null }): string {
  const identity = `${escapeText(ref.type)} ${escapeText(ref.id)}`;
  return ref.label === null || ref.label === '' ? identity : `**${escapeText(ref.label)}** (${identity})`;
}

function targetsText(targets: Identifier[]): string {
  return targets.map((t) => `${escapeText(t.type)} ${escapeText(t.id)}`).join(', ');
}

function linkageText(linkage: Linkage | undefined): string {
  if (linkage === undefined) return '*absent*';
  if (linkage === null) return '*none*';
  if (Array.isArray(linkage)) return linkage.length === 0 ? '*none*' : targetsText(linkage);
  return `${escapeText(linkage.type)} ${escapeText(linkage.id)}`;
}

function attributeLine(change: AttributeChange): string {
  const side = (key: 'old' | 'new'): string =>
    value(change[key], key in change, key in change ? memberText(change, key) : undefined);
  return `  - ${value(change.name)}: ${side('old')} → ${side('new')}`;
}

function relationshipLine(change: RelationshipChange): string {
  const toMany = Array.isArray(change.old) || Array.isArray(change.new);
  if (toMany && change.added.length + change.removed.length > 0) {
    const parts = [];
    if (change.added.length > 0) parts.push(`added ${targetsText(change.added)}`);
    if (change.removed.length > 0) parts.push(`removed ${targetsText(change.removed)}`);
    return `  - ${value(change.name)}: ${parts.join('; ')}`;
  }
  return `  - ${value(change.name)}: ${linkageText(change.old)} → ${linkageText(change.new)}`;
}

function recordTable(records: RecordRef[]): string[] {
  const withStatus = records.some((r) => r.status !== null);
  const lines = [
    withStatus ? '| type | id | term | status |' : '| type | id | term |',
    withStatus ? '|---|--:|---|---|' : '|---|--:|---|',
  ];
  for (const r of records) {
    const cells = [escapeText(r.type), escapeText(r.id), r.label === null ? '*none*' : escapeText(r.label)];
    if (withStatus) cells.push(escapeText(r.status ?? ''));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}

const countsText = (c: CollectionDiff): string => `${c.records.old ?? '–'} → ${c.records.new ?? '–'} records`;

/** The elements of a collection's lists without a type and id, in one sentence; null when none. */
function unmatchedText(c: CollectionDiff): string | null {
  const { old, new: now, same } = c.unmatched;
  if (old + now === 0) return null;
  const name = escapeText(c.name);
  if (same) {
    return (
      `${name}: ${plural(old, 'record')} without a type and id in each snapshot could not be compared ` +
      'record by record; compared as a whole, they are the same in both.'
    );
  }
  return (
    `${name}: ${plural(old + now, 'record')} without a type and id could not be compared record by record ` +
    `(${old} in the old snapshot, ${now} in the new), and they are not the same in both: what changed in them ` +
    'cannot be told.'
  );
}

/** Why a collection's records are listed as not fetched: the pages the partial snapshot lacks, or that shifted. */
function notFetchedText(diff: SnapshotDiff, c: CollectionDiff): string {
  const side = c.missingPages.new.length > 0 || diff.new.shifted.includes(c.name) ? 'new' : 'old';
  const other = side === 'new' ? 'old' : 'new';
  const verb = side === 'new' ? 'removed' : 'added';
  const pages = c.missingPages[side];
  const shown = pages
    .slice(0, 3)
    .map((url) => value(url))
    .join(', ');
  const more = pages.length > 3 ? ` and ${pages.length - 3} more` : '';
  const lacks =
    pages.length > 0 ? `lacks ${pages.length === 1 ? 'the page' : 'the pages'} ${shown}${more}` : 'lacks pages';
  if (diff[side].shifted.includes(c.name)) {
    return (
      `The ${side} snapshot is partial: the pages of this collection disagreed every time they were fetched` +
      `${pages.length > 0 ? `, and it ${lacks} of it` : ''}, so it may hold some records twice and miss others. ` +
      `These records are in the ${other} snapshot only, and may be missing from the ${side} one for that reason: ` +
      `whether they were ${verb} cannot be told.`
    );
  }
  return (
    `The ${side} snapshot is partial: it ${lacks} of this collection. These records are in the ` +
    `${other} snapshot only, and may be on the pages not fetched: whether they were ${verb} cannot be told.`
  );
}

/**
 * Adds `more`, then `after`, to `lines` one by one: spread into one push, a collection's 100,000s of lines would be
 * more arguments than a call takes (a RangeError, where a diff of large snapshots should just be long).
 */
function append(lines: string[], more: Iterable<string>, ...after: string[]): void {
  for (const line of more) lines.push(line);
  for (const line of after) lines.push(line);
}

function section(diff: SnapshotDiff, c: CollectionDiff): string[] {
  const lines = [`## ${escapeText(c.name)}`, ''];
  if (c.change === 'added')
    return [...lines, `New collection with ${c.records.new ?? 0} records (listed in --format json).`, ''];
  if (c.change === 'removed')
    return [...lines, `Collection removed; it held ${c.records.old ?? 0} records (listed in --format json).`, ''];
  lines.push(`${countsText(c)}.`, '');
  const unmatched = unmatchedText(c);
  if (unmatched !== null) lines.push(unmatched, '');
  if (c.notFetched.length > 0) {
    lines.push(`### Not fetched (${c.notFetched.length})`, '', notFetchedText(diff, c), '');
    append(lines, recordTable(c.notFetched), '');
  }
  if (c.removed.length > 0) {
    lines.push(`### Removed (${c.removed.length})`, '');
    append(lines, recordTable(c.removed), '');
  }
  if (c.statusChanges.length > 0) {
    lines.push(`### Status changes (${c.statusChanges.length})`, '');
    for (const s of c.statusChanges) lines.push(`- ${named(s)}: ${value(s.old)} → ${value(s.new)}`);
    lines.push('');
  }
  if (c.added.length > 0) {
    lines.push(`### Added (${c.added.length})`, '');
    append(lines, recordTable(c.added), '');
  }
  if (c.renamed.length > 0) {
    lines.push(`### Renamed (${c.renamed.length})`, '');
    for (const r of c.renamed) {
      lines.push(`- ${escapeText(r.type)} ${escapeText(r.id)}: ${value(r.old)} → ${value(r.new)}`);
    }
    lines.push('');
  }
  if (c.changed.length > 0) {
    lines.push(`### Changed (${c.changed.length})`, '');
    for (const record of c.changed) {
      lines.push(`- ${named(record)}`);
      append(lines, record.attributes.map(attributeLine));
      append(lines, record.relationships.map(relationshipLine));
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
    c.notFetched.length,
    c.statusChanges.length,
    c.added.length,
    c.renamed.length,
    c.changed.length,
  ];
}

function byImportance(a: CollectionDiff, b: CollectionDiff): number {
  const [x, y] = [importance(a), importance(b)];
  for (let i = 0; i < x.length; i += 1) if (x[i] !== y[i]) return (y[i] ?? 0) - (x[i] ?? 0);
  return byCodeUnits(a.name, b.name);
}

/**
 * One snapshot's line of the header: its source, when it was recorded, the root index's Last-Modified and ETag as the
 * source sent them (the new line says when its ETag is the old one's: the root index itself did not change, whatever
 * its Last-Modified says), and its records.
 */
function sourceLine(label: string, side: SnapshotDiff['old'], other?: SnapshotDiff['old']): string {
  const sameEtag = other !== undefined && side.etag !== null && side.etag === other.etag;
  const state = [
    side.lastModified !== null ? `Last-Modified ${side.lastModified}` : null,
    side.etag === null
      ? null
      : sameEtag
        ? 'the same ETag: the root index itself is unchanged'
        : `ETag ${value(side.etag)}`,
  ].filter((s) => s !== null);
  const details = state.length > 0 ? ` (root index: ${state.join(', ')})` : '';
  const shifted =
    side.shifted.length > 0 ? ` (the pages of ${side.shifted.map((name) => value(name)).join(', ')} shifted)` : '';
  const partial = side.partial ? `, **partial**${shifted}` : '';
  return `- ${label}: ${value(side.root)}, recorded ${side.createdAt}${details}, ${side.records} records${partial}`;
}

export function formatDiffMarkdown(diff: SnapshotDiff): string {
  const lines = ['# Vocabulary changes', '', sourceLine('Old', diff.old), sourceLine('New', diff.new, diff.old), ''];
  const unmatched = diff.collections.map(unmatchedText).filter((text) => text !== null);
  if (diff.identical) {
    lines.push(`No differences: the same ${diff.new.records} records in ${diff.collections.length} collections.`);
    if (unmatched.length > 0) lines.push('', ...unmatched.map((text) => `- ${text}`));
    return `${lines.join('\n')}\n`;
  }
  const { summary } = diff;
  const notFetched = summary.records.notFetched;
  const collectionsText =
    summary.collections.added + summary.collections.removed > 0
      ? `; ${summary.collections.added} collections added, ${summary.collections.removed} removed`
      : '';
  lines.push(
    `${summary.records.added} added, ${summary.records.removed} removed, ${summary.records.changed} changed ` +
      `(${plural(summary.statusChanges, 'status change')}, ${summary.renamed} renamed)` +
      `${notFetched > 0 ? `, ${notFetched} not fetched` : ''}` +
      `${summary.records.unmatched > 0 ? `, ${summary.records.unmatched} not compared` : ''}${collectionsText}.`,
    '',
  );
  if (unmatched.length > 0) {
    lines.push(
      'Records without a type and id cannot be matched across snapshots: they are compared as a whole, and a ' +
        'collection whose such records are not the same in both is listed as changed.',
      '',
      ...unmatched.map((text) => `- ${text}`),
      '',
    );
  }
  if (notFetched > 0) {
    lines.push(
      'A partial snapshot (made with --allow-partial) lacks list pages, or holds collections whose pages shifted ' +
        'while they were fetched: records that only the other snapshot holds in those collections are listed as ' +
        '*not fetched*, not as added or removed.',
      '',
    );
  }
  const columns = ['collection', 'records before', 'records after', 'added', 'removed', 'changed'];
  columns.push('status changes', 'renamed');
  if (notFetched > 0) columns.push('not fetched');
  lines.push(`| ${columns.join(' | ')} |`, `|---${'|--:'.repeat(columns.length - 1)}|`);
  const changed = diff.collections.filter((c) => c.change !== 'unchanged').sort(byImportance);
  const row = (cells: Array<string | number>, notFetchedCell: string | number): string =>
    `| ${[...cells, ...(notFetched > 0 ? [notFetchedCell] : [])].join(' | ')} |`;
  for (const c of changed) {
    const counts = [c.added.length, c.removed.length, c.changed.length, c.statusChanges.length, c.renamed.length];
    const name = escapeText(c.name);
    lines.push(row([name, c.records.old ?? '–', c.records.new ?? '–', ...counts], c.notFetched.length));
  }
  const { added, removed, changed: changedRecords } = summary.records;
  const totals = [added, removed, changedRecords, summary.statusChanges, summary.renamed];
  lines.push(row(['**total**', diff.old.records, diff.new.records, ...totals], notFetched), '');
  const unchanged = diff.collections.filter((c) => c.change === 'unchanged');
  if (unchanged.length > 0) lines.push(`Unchanged: ${unchanged.map((c) => escapeText(c.name)).join(', ')}.`, '');
  for (const c of changed) append(lines, section(diff, c));
  return `${lines.join('\n').trimEnd()}\n`;
}
