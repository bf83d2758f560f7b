/**
 * The catalogue's Changes page (`_catalogue/changes.html`, docs/catalogue.md#changes) and the line each changed
 * record's page carries: what was added, removed, renamed, changed status, got a successor or was otherwise edited
 * since the snapshot the folder held before. The comparison is `diff`'s own (src/diff/); this module only shows it.
 * Every snapshot with a catalogue has the page, linked from the front page: the first one in a folder says that it
 * is the first.
 */
import { LABEL_ATTRIBUTES } from '../format/records.js';
import type { CollectionDiff, RecordChange, SnapshotDiff } from '../diff/diff-format.js';
import { flatKey } from '../util/flat-key.js';
import { CATALOGUE_DIR } from '../format/layout.js';
import { esc, page, snapshotTime, statusBadge } from './html.js';
import type { HumanNames } from './labels.js';
import type { CatalogueRecords } from './records.js';
import { plural } from '../util/plural.js';

export const CHANGES_PAGE = `${CATALOGUE_DIR}/changes.html`;
/** Items listed per kind of change; the rest are counted (`cv-snapshot diff` lists every one). */
const MAX_ITEMS = 1000;
const SUCCESSOR = 'successor';

/** What the Changes page compares, as the pipeline found it (src/pipeline/changes-since.ts). */
export type CatalogueChanges =
  | {
      /** Nothing compared: --out held no snapshot before (`first`), or one that cannot be read as one. */
      against: null;
      why: 'first' | 'unreadable';
    }
  | { against: { root: string; createdAt: string }; diff: SnapshotDiff };

/** What the page needs of the catalogue: where each record's page is, and each collection's name. */
interface Site {
  records: CatalogueRecords;
  titles: ReadonlyMap<string, string>;
  names: HumanNames;
}
interface Target {
  type: string;
  id: string;
}

/** The targets a record's `successor` relationship gained, when the source gives it as data. */
function successorsOf(change: RecordChange): Target[] {
  return change.relationships.find((r) => r.name === SUCCESSOR)?.added ?? [];
}

/** The fields of a change that its rename, status change and successor do not already say. */
function otherFields(change: RecordChange, renamed: boolean): string[] {
  // The attribute the new label comes from (records.ts: the first label attribute with more than white space).
  const named = (name: string) =>
    change.attributes.some((a) => a.name === name && typeof a.new === 'string' && a.new.trim() !== '');
  const label = LABEL_ATTRIBUTES.find(named);
  return [
    ...change.attributes.map((a) => a.name).filter((name) => name !== 'status' && !(renamed && name === label)),
    ...change.relationships.map((r) => r.name).filter((name) => name !== SUCCESSOR),
  ];
}

/**
 * A collection's changed records as the page and the records' notes both tell them: those that gained a successor,
 * and those with other edits (the fields that the rename, the status change and the successor do not already say).
 */
function classified(c: CollectionDiff): {
  successors: Array<{ change: RecordChange; targets: Target[] }>;
  edited: Array<{ change: RecordChange; fields: string[] }>;
} {
  const renamed = new Set(c.renamed.map((r) => flatKey(r.type, r.id)));
  const successors: Array<{ change: RecordChange; targets: Target[] }> = [];
  const edited: Array<{ change: RecordChange; fields: string[] }> = [];
  for (const change of c.changed) {
    const targets = successorsOf(change);
    if (targets.length > 0) successors.push({ change, targets });
    const fields = otherFields(change, renamed.has(flatKey(change.type, change.id)));
    if (fields.length > 0) edited.push({ change, fields });
  }
  return { successors, edited };
}

/** A record's page, from the Changes page; null when this snapshot has no page for it. */
function hrefOf(site: Site, target: Target): string | null {
  const found = site.records.find(target.type, target.id);
  return found ? found.page.slice(CATALOGUE_DIR.length + 1) : null;
}

/** "(Units, id 7)": where a record is, for people. */
function where(site: Site, collection: string, target: Target): string {
  return `<span class="muted">(${esc(site.titles.get(collection) ?? collection)}, id ${esc(target.id)})</span>`;
}

/** A record as the page names it: its label linked to its page, with its collection and id. */
function named(site: Site, collection: string, target: Target, label: string | null): string {
  const href = hrefOf(site, target);
  // Named as on its page and in the downloads (records.ts: labelOf): a record without a label by its id.
  const text = esc(label ?? target.id);
  return `${href === null ? text : `<a href="${esc(href)}">${text}</a>`} ${where(site, collection, target)}`;
}

/** One kind of change: a heading with its count and a list of at most MAX_ITEMS items. */
function section(id: string, title: string, items: string[]): string {
  if (items.length === 0) return '';
  const shown = items.slice(0, MAX_ITEMS).map((item) => `<li>${item}</li>`);
  if (items.length > MAX_ITEMS) {
    shown.push(`<li class="muted">and ${items.length - MAX_ITEMS} more: <code>cv-snapshot diff</code> lists all.</li>`);
  }
  return `<h2 id="${id}">${title} (${items.length})</h2>\n<ul class="plain changes">\n${shown.join('\n')}\n</ul>\n`;
}

function statusText(status: string | null): string {
  return status === null ? '<span class="muted">no status</span>' : statusBadge(status) || esc(status);
}

/** The sections of the page, each kind of change over every collection (collections in name order). */
function sections(site: Site, diff: SnapshotDiff): string {
  const items = { added: [], removed: [], renamed: [], status: [], successor: [], edited: [] } as Record<
    'added' | 'removed' | 'renamed' | 'status' | 'successor' | 'edited',
    string[]
  >;
  for (const c of diff.collections) {
    const name = (t: Target, label: string | null) => named(site, c.name, t, label);
    for (const r of c.added)
      items.added.push(name(r, r.label) + (r.status === null ? '' : ` ${statusBadge(r.status)}`));
    // A removed record has no page here: named, never linked.
    for (const r of c.removed) items.removed.push(`${esc(r.label ?? r.id)} ${where(site, c.name, r)}`);
    for (const r of c.renamed) items.renamed.push(`“${esc(r.old)}” is now ${name(r, r.new)}`);
    for (const s of c.statusChanges) {
      items.status.push(`${name(s, s.label)}: from ${statusText(s.old)} to ${statusText(s.new)}`);
    }
    const { successors, edited } = classified(c);
    for (const { change, targets } of successors) {
      const shown = targets.map((t) => {
        const found = site.records.find(t.type, t.id);
        return found ? named(site, found.collection, t, found.label) : `${esc(t.type)} ${esc(t.id)}`;
      });
      items.successor.push(`${name(change, change.label)} is replaced by ${shown.join(', ')}`);
    }
    for (const { change, fields } of edited) {
      items.edited.push(`${name(change, change.label)}: ${fields.map((f) => esc(site.names.field(f))).join(', ')}`);
    }
  }
  return (
    section('added', 'Added', items.added) +
    section('removed', 'Removed', items.removed) +
    section('renamed', 'Renamed', items.renamed) +
    section('status', 'Status changed', items.status) +
    section('successor', 'Replaced by a successor', items.successor) +
    section('edited', 'Other edits', items.edited)
  );
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** How many successors were gained, over every collection. */
function successorCount(diff: SnapshotDiff): number {
  return diff.collections.reduce((n, c) => n + classified(c).successors.length, 0);
}

/**
 * "2 added, 2 removed, 9 changed (1 renamed, 1 status change, 0 replaced by a successor)", without the parenthesis
 * when `short`; or that nothing changed.
 */
function countsText(diff: SnapshotDiff, short = false): string {
  const { records, renamed, statusChanges } = diff.summary;
  if (records.added + records.removed + records.changed === 0) return 'no record added, removed or changed';
  const counts = `${records.added} added, ${records.removed} removed, ${records.changed} changed`;
  if (short) return counts;
  return (
    `${counts} (${renamed} renamed, ${plural(statusChanges, 'status change')}, ` +
    `${successorCount(diff)} replaced by a successor)`
  );
}

/**
 * The collections only one snapshot has, the records a partial snapshot could not compare, and those without a
 * type and id that are not the same in both, which cannot be matched record by record.
 */
function collectionsNote(diff: SnapshotDiff): string {
  const names = (change: CollectionDiff['change']) =>
    diff.collections.filter((c) => c.change === change).map((c) => `<code>${esc(c.name)}</code>`);
  const notes = [];
  if (names('added').length > 0) notes.push(`New collections: ${names('added').join(', ')}.`);
  if (names('removed').length > 0) notes.push(`Collections no longer in the source: ${names('removed').join(', ')}.`);
  const notFetched = diff.summary.records.notFetched;
  if (notFetched > 0) {
    notes.push(
      `${plural(notFetched, 'record')} could not be compared: one of the snapshots is partial, it lacks list ` +
        'pages or holds a collection whose pages disagreed every time they were fetched (<code>cv-snapshot ' +
        'diff</code> names them).',
    );
  }
  const { unmatched } = diff.summary.records;
  if (unmatched > 0) {
    notes.push(
      `${plural(unmatched, 'record')} without a type and id could not be compared record by record, and ` +
        'are not the same in both snapshots: what changed in them cannot be told (<code>cv-snapshot diff</code> ' +
        'counts them per collection).',
    );
  }
  return notes.length === 0 ? '' : `<p>${notes.join(' ')}</p>\n`;
}

const NOT_COMPARED = {
  first:
    'This is the first snapshot in this folder: there is no earlier one to compare it with. The next crawl into ' +
    'the same <code>--out</code> lists here what was added, removed, renamed, changed status or was replaced by a ' +
    'successor since this one.',
  unreadable:
    'The folder held an earlier snapshot that could not be read as one, so no changes are listed here. ' +
    '<code>cv-snapshot verify</code> on it says why; <code>cv-snapshot diff</code> compares any two snapshots.',
} as const;

/** The Changes page. */
export function changesHtml(site: Site, changes: CatalogueChanges, createdAt: string): string {
  let body: string;
  if (changes.against === null) body = `<p>${NOT_COMPARED[changes.why]}</p>\n`;
  else {
    const { diff } = changes;
    body =
      `<p>This snapshot (taken ${snapshotTime(createdAt).html}) compared with the one this folder held before: ` +
      `<code>${esc(changes.against.root)}</code>, taken ${snapshotTime(changes.against.createdAt).html}.</p>\n` +
      `<p class="summary">${capitalised(countsText(diff))}.</p>\n${collectionsNote(diff)}${sections(site, diff)}` +
      '<p class="muted">Records are compared by type and id, their attributes as the source wrote them and their ' +
      'relationships by target. <code>cv-snapshot diff</code> gives every old and new value, as Markdown or ' +
      'JSON.</p>\n';
  }
  return page({
    title: 'Changes since the previous snapshot',
    toCatalogue: '',
    toFront: '../index.html',
    crumbs: [],
    body,
    site: site.names.names.site?.title,
  });
}

/** The front page's line: what changed, linked to the Changes page. */
export function changesLink(changes: CatalogueChanges): string {
  const text =
    changes.against === null
      ? changes.why === 'first'
        ? 'none listed: the first snapshot in this folder'
        : 'not compared'
      : `${countsText(changes.diff, true)} since the snapshot of ${snapshotTime(changes.against.createdAt).html}`;
  return `<a href="${CHANGES_PAGE}">${text}</a>`;
}

/** What each changed record's page says, by type and id (a record listed in two collections: each note once). */
export function changeNotes(changes: CatalogueChanges, names: HumanNames): Map<string, string[]> {
  const notes = new Map<string, string[]>();
  if (changes.against === null) return notes;
  const note = (t: Target, text: string) => {
    const key = flatKey(t.type, t.id);
    const known = notes.get(key) ?? [];
    if (!known.includes(text)) notes.set(key, [...known, text]);
  };
  for (const c of changes.diff.collections) {
    for (const r of c.added) note(r, 'new in this snapshot');
    for (const r of c.renamed) note(r, `renamed from “${esc(r.old)}”`);
    for (const s of c.statusChanges) note(s, `status changed from ${statusText(s.old)} to ${statusText(s.new)}`);
    const { successors, edited } = classified(c);
    for (const { change } of successors) note(change, 'replaced by a successor');
    for (const { change, fields } of edited)
      note(change, `${fields.map((f) => esc(names.field(f))).join(', ')} changed`);
  }
  return notes;
}

/** The line under a changed record's heading (from a record page, two folders below the tree's top). */
export function changeNoteHtml(notes: readonly string[] | undefined): string {
  if (notes === undefined || notes.length === 0) return '';
  return (
    `<p class="changed">Since the previous snapshot: ${notes.join('; ')}. ` +
    `<a href="../changes.html">All changes</a></p>\n`
  );
}
