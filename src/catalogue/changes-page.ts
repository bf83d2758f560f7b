/**
 * The catalogue's Changes page (`_catalogue/changes.html`, docs/catalogue.md#changes) and the line each changed
 * record's page carries: what was added, removed, renamed, changed status, got a successor or was otherwise edited
 * since the snapshot the folder held before. The comparison is `diff`'s own (src/diff/); this module only shows it.
 * Every snapshot with a catalogue has the page, linked from the front page: the first one in a folder says that it
 * is the first.
 */
import { LABEL_ATTRIBUTES } from '../format/records.js';
import type {
  AttributeChange,
  CollectionDiff,
  Identifier,
  Linkage,
  RecordChange,
  RelationshipChange,
  SnapshotDiff,
} from '../diff/diff-format.js';
import { memberText } from '../diff/exact-values.js';
import { flatKey } from '../util/flat-key.js';
import { CATALOGUE_DIR } from '../format/layout.js';
import { esc, page, snapshotTime, statusBadge } from './html.js';
import type { HumanNames } from './labels.js';
import type { CatalogueRecords } from './records.js';
import { plural } from '../util/plural.js';
import { tombstoneKey, tombstonePages, type Tombstone } from './tombstones.js';

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
  | {
      against: { root: string; createdAt: string };
      diff: SnapshotDiff;
      /**
       * The removed records that keep a page (tombstones.ts): those removed since the previous snapshot, with their
       * last term, status and definition, and those it kept itself.
       */
      tombstones: Tombstone[];
    };

/** What the page needs of the catalogue: where each record's page is, and each collection's name. */
interface Site {
  records: CatalogueRecords;
  titles: ReadonlyMap<string, string>;
  names: HumanNames;
}
type Target = Identifier;

/** The targets a record's `successor` relationship gained, when the source gives it as data. */
function successorsOf(change: RecordChange): Target[] {
  return change.relationships.find((r) => r.name === SUCCESSOR)?.added ?? [];
}

/** Above this length a value is cut short on the pages (`cv-snapshot diff` prints it whole). */
const MAX_VALUE = 300;

/** An attribute's value on one side: a string in quotes, other JSON as the source wrote it, "none" when absent. */
function valueHtml(change: AttributeChange, side: 'old' | 'new'): string {
  const v = change[side];
  if (!(side in change) || v === null || v === '') return '<span class="muted">none</span>';
  const text = typeof v === 'string' ? v : memberText(change, side);
  const cut = text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text;
  return typeof v === 'string' ? `“${esc(cut)}”` : `<code>${esc(cut)}</code>`;
}

/** Targets as people read them: each label, linked to its page where `link` gives one; else its type and id. */
function targetsHtml(site: Site, targets: readonly Target[], link: (page: string) => string | null): string {
  if (targets.length === 0) return '<span class="muted">none</span>';
  return targets
    .map((t) => {
      const found = site.records.find(t.type, t.id);
      if (found === undefined) return `${esc(t.type)} ${esc(t.id)}`;
      const href = link(found.page);
      return href === null ? esc(found.label) : `<a href="${esc(href)}">${esc(found.label)}</a>`;
    })
    .join(', ');
}

const linkageTargets = (linkage: Linkage | undefined): Target[] =>
  linkage === undefined || linkage === null ? [] : Array.isArray(linkage) ? linkage : [linkage];

/** One edited field, "Definition: “old” → “new”"; a to-many relationship as the targets it gained and lost. */
function fieldHtml(name: string, old: string, now: string): string {
  return `${esc(name)}: <del>${old}</del> → <ins>${now}</ins>`;
}

/** Edited fields, each on a line of its own, separated as a sentence reads them ("a; b"), the last with `end`. */
function editLines(edits: readonly string[], end = ''): string {
  return edits.map((e, i) => `<span class="edit">${e}${i < edits.length - 1 ? ';' : end}</span>`).join(' ');
}

function relationshipHtml(site: Site, change: RelationshipChange, link: (page: string) => string | null): string {
  const name = esc(site.names.relation(change.name));
  if (Array.isArray(change.old) || Array.isArray(change.new)) {
    const parts = [];
    if (change.added.length > 0) parts.push(`added ${targetsHtml(site, change.added, link)}`);
    if (change.removed.length > 0) parts.push(`removed ${targetsHtml(site, change.removed, link)}`);
    if (parts.length > 0) return `${name}: ${parts.join('; ')}`;
  }
  const side = (linkage: Linkage | undefined) => targetsHtml(site, linkageTargets(linkage), link);
  return fieldHtml(site.names.relation(change.name), side(change.old), side(change.new));
}

/**
 * The fields of a change that its rename, status change and successor do not already say, each with its old and new
 * value; `link` gives the href of a record's page (its path in the tree) from where the text is shown.
 */
function otherEdits(
  site: Site,
  change: RecordChange,
  renamed: boolean,
  link: (page: string) => string | null,
): string[] {
  // The attribute the new label comes from (records.ts: the first label attribute with more than white space).
  const named = (name: string) =>
    change.attributes.some((a) => a.name === name && typeof a.new === 'string' && a.new.trim() !== '');
  const label = LABEL_ATTRIBUTES.find(named);
  return [
    ...change.attributes
      .filter((a) => a.name !== 'status' && !(renamed && a.name === label))
      .map((a) => fieldHtml(site.names.field(a.name), valueHtml(a, 'old'), valueHtml(a, 'new'))),
    ...change.relationships.filter((r) => r.name !== SUCCESSOR).map((r) => relationshipHtml(site, r, link)),
  ];
}

/**
 * A collection's changed records as the page and the records' notes both tell them: those that gained a successor,
 * and those with other edits (the fields that the rename, the status change and the successor do not already say).
 */
function classified(
  site: Site,
  c: CollectionDiff,
  link: (page: string) => string | null,
): {
  successors: Array<{ change: RecordChange; targets: Target[] }>;
  edited: Array<{ change: RecordChange; edits: string[] }>;
} {
  const renamed = new Set(c.renamed.map((r) => flatKey(r.type, r.id)));
  const successors: Array<{ change: RecordChange; targets: Target[] }> = [];
  const edited: Array<{ change: RecordChange; edits: string[] }> = [];
  for (const change of c.changed) {
    const targets = successorsOf(change);
    if (targets.length > 0) successors.push({ change, targets });
    const edits = otherEdits(site, change, renamed.has(flatKey(change.type, change.id)), link);
    if (edits.length > 0) edited.push({ change, edits });
  }
  return { successors, edited };
}

/** A record's page (its path in the tree) as linked from the Changes page. */
const fromChangesPage = (page: string): string => page.slice(CATALOGUE_DIR.length + 1);

/** A record's page, from the Changes page; null when this snapshot has no page for it. */
function hrefOf(site: Site, target: Target): string | null {
  const found = site.records.find(target.type, target.id);
  return found ? fromChangesPage(found.page) : null;
}

/** "(Units, id 7)": where a record is, for people. */
function where(site: Site, collection: string, target: Target): string {
  return `<span class="muted">(${esc(site.titles.get(collection) ?? collection)}, id ${esc(target.id)})</span>`;
}

/** A record as the page names it: its label linked to its page (`href`, else its own), with its collection and id. */
function named(site: Site, collection: string, target: Target, label: string | null, href = hrefOf(site, target)) {
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

type Compared = Extract<CatalogueChanges, { diff: SnapshotDiff }>;

/** The sections of the page, each kind of change over every collection (collections in name order). */
function sections(site: Site, changes: Compared): string {
  const items = { added: [], removed: [], renamed: [], status: [], successor: [], edited: [], earlier: [] } as Record<
    'added' | 'removed' | 'renamed' | 'status' | 'successor' | 'edited' | 'earlier',
    string[]
  >;
  const tombstones = tombstonePages(changes.tombstones);
  const removedPage = (collection: string, r: Target) => {
    const file = tombstones.get(tombstoneKey(collection, r));
    return file === undefined ? null : fromChangesPage(file);
  };
  for (const c of changes.diff.collections) {
    const name = (t: Target, label: string | null) => named(site, c.name, t, label);
    for (const r of c.added)
      items.added.push(name(r, r.label) + (r.status === null ? '' : ` ${statusBadge(r.status)}`));
    // A removed record is linked to the page it keeps (its tombstone).
    for (const r of c.removed) items.removed.push(named(site, c.name, r, r.label, removedPage(c.name, r)));
    for (const r of c.renamed) items.renamed.push(`“${esc(r.old)}” is now ${name(r, r.new)}`);
    for (const s of c.statusChanges) {
      items.status.push(`${name(s, s.label)}: from ${statusText(s.old)} to ${statusText(s.new)}`);
    }
    const { successors, edited } = classified(site, c, fromChangesPage);
    for (const { change, targets } of successors) {
      const shown = targets.map((t) => {
        const found = site.records.find(t.type, t.id);
        return found ? named(site, found.collection, t, found.label) : `${esc(t.type)} ${esc(t.id)}`;
      });
      items.successor.push(`${name(change, change.label)} is replaced by ${shown.join(', ')}`);
    }
    for (const { change, edits } of edited) items.edited.push(`${name(change, change.label)}: ${editLines(edits)}`);
  }
  // Those the previous snapshot still held are under Removed; the others were removed before it.
  const fresh = new Set(changes.diff.collections.flatMap((c) => c.removed.map((r) => tombstoneKey(c.name, r))));
  for (const t of changes.tombstones) {
    if (fresh.has(tombstoneKey(t.collection, t))) continue;
    const item = named(site, t.collection, t, t.label, removedPage(t.collection, t));
    items.earlier.push(`${item}, removed in the snapshot of ${snapshotTime(t.removedIn).html}`);
  }
  return (
    section('added', 'Added', items.added) +
    section('removed', 'Removed', items.removed) +
    section('renamed', 'Renamed', items.renamed) +
    section('status', 'Status changed', items.status) +
    section('successor', 'Replaced by a successor', items.successor) +
    section('edited', 'Other edits', items.edited) +
    section('earlier', 'Removed before', items.earlier)
  );
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** How many records gained a successor, over every collection. */
function successorCount(diff: SnapshotDiff): number {
  return diff.collections.reduce((n, c) => n + c.changed.filter((r) => successorsOf(r).length > 0).length, 0);
}

/** "a, b and c"; "a" alone. */
function listed(parts: string[]): string {
  return parts.length < 2 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
}

/**
 * "2 added, 2 removed and 9 changed (1 renamed, 1 status change)", without the parenthesis when `short`; each count
 * that is zero left out; or that nothing changed.
 */
function countsText(diff: SnapshotDiff, short = false): string {
  const { records, renamed, statusChanges } = diff.summary;
  if (records.added + records.removed + records.changed === 0) return 'no record added, removed or changed';
  const counts = listed(
    [`${records.added} added`, `${records.removed} removed`, `${records.changed} changed`].filter(
      (part) => !part.startsWith('0 '),
    ),
  );
  const successors = successorCount(diff);
  const details = [
    renamed > 0 ? `${renamed} renamed` : '',
    statusChanges > 0 ? plural(statusChanges, 'status change') : '',
    successors > 0 ? `${successors} replaced by a successor` : '',
  ].filter((part) => part !== '');
  return short || details.length === 0 ? counts : `${counts} (${details.join(', ')})`;
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
    const source =
      diff.new.root === changes.against.root
        ? ''
        : ` The earlier snapshot was of <code>${esc(changes.against.root)}</code>.`;
    body =
      `<p>What changed in <code>${esc(diff.new.root)}</code> between the snapshot of ` +
      `${snapshotTime(changes.against.createdAt).html} and this one, of ${snapshotTime(createdAt).html}.` +
      `${source}</p>\n` +
      `<p class="summary">${capitalised(countsText(diff))}.</p>\n${collectionsNote(diff)}${sections(site, changes)}` +
      '<p class="muted">Records are compared by type and id, their attributes as the source wrote them and their ' +
      'relationships by target. <code>cv-snapshot diff</code> gives every old and new value in full, as Markdown ' +
      'or JSON.</p>\n';
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

/** What a changed record's page says (changeNoteHtml): since which snapshot, and each change. */
export interface ChangeNote {
  /** The previous snapshot's `createdAt`. */
  since: string;
  /** Added in this snapshot. */
  added: boolean;
  /** What changed, in words ("renamed from “K”"). */
  changes: string[];
  /** Each other edited field with its old and new value, a line each. */
  edits: string[];
}

/**
 * What each changed record's page says, by type and id (a record listed in two collections: each change once), with
 * the old and new value of each field; targets linked from a record page, two folders below the tree's top.
 */
export function changeNotes(changes: CatalogueChanges, site: Site): Map<string, ChangeNote> {
  const notes = new Map<string, ChangeNote>();
  if (changes.against === null) return notes;
  const since = changes.against.createdAt;
  const noteOf = (t: Target) => {
    const key = flatKey(t.type, t.id);
    let note = notes.get(key);
    if (note === undefined) notes.set(key, (note = { since, added: false, changes: [], edits: [] }));
    return note;
  };
  const note = (t: Target, text: string, kind: 'changes' | 'edits' = 'changes') => {
    const known = noteOf(t)[kind];
    if (!known.includes(text)) known.push(text);
  };
  const fromRecordPage = (page: string) => `../../${page}`;
  for (const c of changes.diff.collections) {
    for (const r of c.added) noteOf(r).added = true;
    for (const r of c.renamed) note(r, `renamed from “${esc(r.old)}”`);
    for (const s of c.statusChanges) note(s, `status from ${statusText(s.old)} to ${statusText(s.new)}`);
    const { successors, edited } = classified(site, c, fromRecordPage);
    for (const { change } of successors) note(change, 'replaced by a successor');
    for (const { change, edits } of edited) for (const edit of edits) note(change, edit, 'edits');
  }
  return notes;
}

/** The line under a changed record's heading (from a record page, two folders below the tree's top). */
export function changeNoteHtml(note: ChangeNote | undefined): string {
  if (note === undefined) return '';
  const when = snapshotTime(note.since).html;
  const all = '<a href="../changes.html">All changes</a>';
  if (note.added) return `<p class="changed">New since the snapshot of ${when}. ${all}</p>\n`;
  const words = note.changes.join('; ');
  const said =
    note.edits.length === 0 ? `${words}.` : `${words}${words === '' ? '' : ';'} ${editLines(note.edits, '.')}`;
  return `<p class="changed">Changed since the snapshot of ${when}: ${said} ${all}</p>\n`;
}
