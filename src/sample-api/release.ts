/**
 * The sample data's "next release": release 1 is release 0 of the same seed and size with a known set of
 * edits, so that `diff` between a crawl of each can be checked against what the data says changed. Every edit is
 * listed as a `ReleaseChange`, including what follows from it (moving an action type to another category changes
 * both categories' `action_types`), so the list is exactly the record-level difference between the two releases.
 *
 * The edits pick records by position, so they apply to every seed; they need `records >= MIN_RECORDS_FOR_RELEASE`.
 * Every case the spec names still holds afterwards: a PENDING term is accepted and a new one requested (spec 3),
 * the records with fixed null and empty-string attributes (positions 1 and 2) are left alone (spec 2.3), some
 * action categories keep no action types (spec 2.4 rule 3), and no community record shares a base term and a
 * community with another (spec 2.4 rule 1).
 */
import type { AttributeValue, MutableRecord, RelationshipValue } from './records.js';
import { provenanceText, sourceOf } from './words.js';

/** The newest release `createSampleData` can build. */
export const LATEST_RELEASE = 1;
/** Release 1 edits records up to position 4 and removes the last one of a collection, so it needs this many. */
export const MIN_RECORDS_FOR_RELEASE = 5;

interface ChangedRecord {
  readonly collection: string;
  readonly id: string;
}

/** One record-level difference between release 0 and a later release; `reason` says what it stands for. */
export type ReleaseChange =
  | (ChangedRecord & { readonly kind: 'added' | 'removed'; readonly reason: string })
  | (ChangedRecord & {
      readonly kind: 'attribute';
      readonly attribute: string;
      readonly old: AttributeValue;
      readonly new: AttributeValue;
      readonly reason: string;
    })
  | (ChangedRecord & {
      readonly kind: 'relationship';
      readonly relationship: string;
      readonly old: RelationshipValue;
      readonly new: RelationshipValue;
      readonly reason: string;
    });

/** Days between release 0's Last-Modified and release 1's. */
const RELEASE_INTERVAL_DAYS = 42;

class ReleaseEditor {
  readonly changes: ReleaseChange[] = [];

  constructor(private readonly records: Map<string, MutableRecord[]>) {}

  list(collection: string): MutableRecord[] {
    const list = this.records.get(collection);
    if (list === undefined) throw new Error(`no collection ${collection}`);
    return list;
  }

  at(collection: string, index: number): MutableRecord {
    const record = this.list(collection).at(index);
    if (record === undefined) throw new RangeError(`${collection} has no record at ${index}`);
    return record;
  }

  /** An id past the collection's last, with a gap, as the real service's ids have after deletions. */
  nextId(collection: string, gap: number): string {
    const last = this.list(collection).at(-1);
    return String((last === undefined ? 0 : Number(last.id)) + gap);
  }

  setAttribute(
    collection: string,
    record: MutableRecord,
    attribute: string,
    value: AttributeValue,
    reason: string,
  ): void {
    const old = record.attributes[attribute] ?? null;
    if (old === value) return;
    record.attributes[attribute] = value;
    this.changes.push({ kind: 'attribute', collection, id: record.id, attribute, old, new: value, reason });
  }

  setRelationship(
    collection: string,
    record: MutableRecord,
    relationship: string,
    value: RelationshipValue,
    reason: string,
  ): void {
    const old = record.relationships[relationship] ?? null;
    if (JSON.stringify(old) === JSON.stringify(value)) return;
    record.relationships[relationship] = value;
    this.changes.push({ kind: 'relationship', collection, id: record.id, relationship, old, new: value, reason });
  }

  add(collection: string, record: MutableRecord, reason: string): void {
    this.list(collection).push(record);
    this.changes.push({ kind: 'added', collection, id: record.id, reason });
  }

  removeLast(collection: string, reason: string): void {
    const removed = this.list(collection).pop();
    if (removed !== undefined) this.changes.push({ kind: 'removed', collection, id: removed.id, reason });
  }
}

function idsOf(editor: ReleaseEditor, collection: string): string[] {
  return editor.list(collection).map((record) => record.id);
}

/** A different id of `ids` than `current`: the next one along. */
function another(ids: readonly string[], current: RelationshipValue): string {
  const index = ids.indexOf(typeof current === 'string' ? current : '');
  const next = ids[(index + 1) % ids.length];
  if (next === undefined || next === current) throw new RangeError('no other target to point at');
  return next;
}

/** The global provenance a collection's terms come from (words.ts), or the first one in a small data set. */
function provenanceOf(editor: ReleaseEditor, collection: string): { id: string; text: string } {
  const provenances = editor.list('globalprovenances');
  const record =
    provenances.find((p) => p.attributes.name === sourceOf(collection)) ?? editor.at('globalprovenances', 0);
  return { id: record.id, text: provenanceText(String(record.attributes.name)) };
}

/** spec 3: the PENDING site usage is accepted, and a new term is requested in its place. */
function acceptAndRequest(editor: ReleaseEditor): void {
  const provenance = provenanceOf(editor, 'siteusages');
  // spec 3: the PENDING site usage is accepted — requester cleared, a provenance and site types set.
  const accepted = editor.list('siteusages').find((record) => record.attributes.status === 'PENDING');
  if (accepted === undefined) throw new Error('release 0 has no PENDING site usage');
  const acceptance = 'the PENDING term was accepted';
  editor.setAttribute('siteusages', accepted, 'status', 'ACCEPTED', acceptance);
  editor.setAttribute('siteusages', accepted, 'requested_by_email', null, acceptance);
  editor.setAttribute('siteusages', accepted, 'provenance', provenance.text, acceptance);
  editor.setRelationship('siteusages', accepted, 'global_provenance', provenance.id, acceptance);
  editor.setRelationship('siteusages', accepted, 'site_types', idsOf(editor, 'sitetypes').slice(0, 2), acceptance);

  // …and a new term is requested, so release 1 still has a PENDING site usage (spec 3).
  editor.add(
    'siteusages',
    {
      id: editor.nextId('siteusages', 4),
      attributes: {
        term: 'Peatland rewetting',
        definition: 'Drained peatland flooded again to restore the wetland.',
        provenance: null,
        provenance_uri: null,
        category: 'Environmental',
        note: null,
        status: 'PENDING',
        requested_by_email: 'field.team@example.org',
        discussion_url: 'https://codebase.example.org/cv/-/issues/412',
      },
      relationships: { global_provenance: null, site_types: [] },
    },
    'a new term was requested',
  );
}

function addUnit(editor: ReleaseEditor): void {
  // A new unit with a community variant of it.
  const provenance = provenanceOf(editor, 'units');
  const unitId = editor.nextId('units', 3);
  editor.add(
    'units',
    {
      id: unitId,
      attributes: {
        term: 'ppm',
        definition: 'Parts per million',
        provenance: provenance.text,
        provenance_uri: 'https://vocab.example.org/units/ppm',
        category: 'Physical',
        note: null,
        status: 'ACCEPTED',
        requested_by_email: null,
        discussion_url: null,
      },
      relationships: { global_provenance: provenance.id },
    },
    'a new unit',
  );
  const community = editor.at('communities', 0);
  editor.add(
    'units-communities',
    {
      id: editor.nextId('units-communities', 2),
      attributes: {
        term: 'ppm',
        abbreviation: 'ppm',
        definition: `ppm, as the ${String(community.attributes.term)} community uses the term.`,
        provenance: `Agreed by ${String(community.attributes.term)} in 2025`,
        provenance_uri: null,
        note: null,
      },
      relationships: { root: unitId, community: community.id },
    },
    "a community's variant of the new unit",
  );
}

function editTerms(editor: ReleaseEditor): void {
  // A rename: same id, new term (position 3 is always "Software update", termAt).
  editor.setAttribute(
    'actioncategories',
    editor.at('actioncategories', 3),
    'term',
    'Software and firmware update',
    'the term was renamed',
  );

  // Attribute edits, away from positions 1 and 2 that hold spec 2.3's null and empty-string cases.
  const license = editor.at('licenses', 0);
  editor.setAttribute(
    'licenses',
    license,
    'definition',
    'Creative Commons Attribution 4.0 International: share and adapt, giving credit to the author.',
    'the definition was rewritten',
  );
  editor.setAttribute(
    'licenses',
    license,
    'provenance_uri',
    'https://spdx.org/licenses/CC-BY-4.0.html',
    'the provenance URI was corrected',
  );
  editor.setAttribute(
    'actioncategories',
    editor.at('actioncategories', 4),
    'definition',
    'Looking a device over for damage, dirt and loose parts, without changing it.',
    'the definition was rewritten',
  );
  editor.setAttribute(
    'units-communities',
    editor.at('units-communities', 3),
    'note',
    'Confirmed at the 2025 annual meeting.',
    'the note was updated',
  );
}

function retarget(editor: ReleaseEditor): void {
  // Relationships retargeted. Action type 0 moves from its category to the last one, which has none (spec 2.4
  // rule 3: action_types is the inverse of action_category, so both categories change too).
  const actionType = editor.at('actiontypes', 0);
  const from = editor.list('actioncategories').find((c) => c.id === actionType.relationships.action_category);
  const to = editor.at('actioncategories', -1);
  if (from === undefined || from === to) throw new Error('action type 0 has no category to move from');
  const move = 'an action type was moved to another category';
  editor.setRelationship('actiontypes', actionType, 'action_category', to.id, move);
  const without = (ids: RelationshipValue): string[] =>
    typeof ids === 'string' || ids === null ? [] : ids.filter((id) => id !== actionType.id);
  const sortedIds = (ids: string[]): string[] => ids.sort((a, b) => Number(a) - Number(b));
  editor.setRelationship(
    'actioncategories',
    from,
    'action_types',
    without(from.relationships.action_types ?? []),
    move,
  );
  editor.setRelationship(
    'actioncategories',
    to,
    'action_types',
    sortedIds([...without(to.relationships.action_types ?? []), actionType.id]),
    move,
  );

  // Position 2 is the only community record of its base term, so another community cannot clash (spec 2.4 rule 1).
  const variant = editor.at('manufacturers-communities', 2);
  editor.setRelationship(
    'manufacturers-communities',
    variant,
    'community',
    another(idsOf(editor, 'communities'), variant.relationships.community ?? null),
    'the variant was handed to another community',
  );
  const quantity = editor.at('measuredquantities-communities', 3);
  editor.setRelationship(
    'measuredquantities-communities',
    quantity,
    'sampling_media',
    another(idsOf(editor, 'samplingmedia'), quantity.relationships.sampling_media ?? null),
    'the sampling medium was corrected',
  );
}

function release1(editor: ReleaseEditor): void {
  acceptAndRequest(editor);
  addUnit(editor);
  editTerms(editor);
  retarget(editor);
  // Removals of records nothing points at: the last base term of a collection is no community record's root
  // (community record i > 1 has root i - 1), and community records are nobody's target.
  editor.removeLast('softwaretypes', 'the term was withdrawn');
  editor.removeLast('manufacturers-communities', 'the community variant was withdrawn');
}

/**
 * Applies releases 1..`release` to release 0's records (in place) and returns every record-level change, in the
 * order made. Throws a RangeError when the release is unknown or the data set too small for it.
 */
export function applyRelease(records: Map<string, MutableRecord[]>, release: number, size: number): ReleaseChange[] {
  if (!Number.isSafeInteger(release) || release < 0 || release > LATEST_RELEASE) {
    throw new RangeError(`release must be a whole number from 0 to ${LATEST_RELEASE}, got ${release}`);
  }
  if (release === 0) return [];
  if (size < MIN_RECORDS_FOR_RELEASE) {
    throw new RangeError(`release ${release} needs records >= ${MIN_RECORDS_FOR_RELEASE}, got ${size}`);
  }
  const editor = new ReleaseEditor(records);
  release1(editor);
  return editor.changes;
}

/** Release n's Last-Modified: release 0's plus a fixed interval per release. */
export function releaseDate(release0: Date, release: number): Date {
  return new Date(release0.getTime() + release * RELEASE_INTERVAL_DAYS * 86_400_000);
}
