/**
 * Comparing two versions of one record (same type and id): which attributes changed, and which relationships point
 * at other targets. Relationships are compared by their `data` (type and id of each target), never by links, which
 * differ between snapshots of the same state (ports, `--links` modes). Attribute values compare as the source wrote
 * them (exact-values.ts).
 */
import { isObject } from '../json/is-object.js';
import type {
  AttributeChange,
  Identifier,
  Linkage,
  RecordChange,
  RecordRef,
  RelationshipChange,
} from './diff-format.js';
import { exactObject, sameMember } from './exact-values.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { byRecordOrder, namedLabel as labelOf, type SnapshotRecord } from '../format/records.js';

/** What is compared of a record: its type, id, attributes and relationships. */
type ComparedRecord = Pick<SnapshotRecord, 'type' | 'id' | 'attributes' | 'relationships'>;

export function statusOf(record: ComparedRecord): string | null {
  const value = record.attributes.status;
  return typeof value === 'string' ? value : null;
}

export function recordRef(record: ComparedRecord): RecordRef {
  return { type: record.type, id: record.id, label: labelOf(record), status: statusOf(record) };
}

function identifierOf(value: unknown): Identifier | null {
  if (!isObject(value) || typeof value.type !== 'string' || typeof value.id !== 'string') return null;
  return { type: value.type, id: value.id };
}

/** The relationship's `data` as type and id only; undefined when the relationship or its data is absent. */
function linkageOf(relationship: unknown): Linkage | undefined {
  if (!isObject(relationship) || !('data' in relationship)) return undefined;
  const { data } = relationship;
  if (Array.isArray(data)) return data.map(identifierOf).filter((x): x is Identifier => x !== null);
  return identifierOf(data);
}

function targets(linkage: Linkage | undefined): Identifier[] {
  if (linkage === undefined || linkage === null) return [];
  return (Array.isArray(linkage) ? linkage : [linkage]).slice().sort(byRecordOrder);
}

const identifierKey = (target: Identifier): string => `${target.type}\u0000${target.id}`;

/** A to-many list compares as a set: its order carries no meaning for a vocabulary. */
function sameLinkage(a: Linkage | undefined, b: Linkage | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) return false;
  const left = new Set(targets(a).map(identifierKey));
  const right = new Set(targets(b).map(identifierKey));
  return left.size === right.size && [...left].every((key) => right.has(key));
}

function compareAttributes(before: ComparedRecord, after: ComparedRecord): AttributeChange[] {
  const names = [...new Set([...Object.keys(before.attributes), ...Object.keys(after.attributes)])].sort(byCodeUnits);
  const changes: AttributeChange[] = [];
  for (const name of names) {
    const had = Object.hasOwn(before.attributes, name);
    const has = Object.hasOwn(after.attributes, name);
    if (had && has && sameMember(before.attributes, name, after.attributes, name)) continue;
    // Built through exactObject so that `old` and `new` print as the source wrote them.
    changes.push(
      exactObject([
        ['name', name],
        ['old', before.attributes, name],
        ['new', after.attributes, name],
      ]) as AttributeChange,
    );
  }
  return changes;
}

function compareRelationships(before: ComparedRecord, after: ComparedRecord): RelationshipChange[] {
  const names = [...new Set([...Object.keys(before.relationships), ...Object.keys(after.relationships)])].sort(
    byCodeUnits,
  );
  const changes: RelationshipChange[] = [];
  for (const name of names) {
    const old = linkageOf(before.relationships[name]);
    const value = linkageOf(after.relationships[name]);
    if (sameLinkage(old, value)) continue;
    const oldKeys = new Set(targets(old).map(identifierKey));
    const newKeys = new Set(targets(value).map(identifierKey));
    changes.push({
      name,
      ...(old !== undefined ? { old } : {}),
      ...(value !== undefined ? { new: value } : {}),
      added: targets(value).filter((t) => !oldKeys.has(identifierKey(t))),
      removed: targets(old).filter((t) => !newKeys.has(identifierKey(t))),
    });
  }
  return changes;
}

/** What changed between two versions of a record, or null when nothing did. */
export function compareRecords(before: ComparedRecord, after: ComparedRecord): RecordChange | null {
  const attributes = compareAttributes(before, after);
  const relationships = compareRelationships(before, after);
  if (attributes.length === 0 && relationships.length === 0) return null;
  return { type: after.type, id: after.id, label: labelOf(after), attributes, relationships };
}

/** The record's label before and after, when it changed (a rename). */
export function renameOf(before: ComparedRecord, after: ComparedRecord): { old: string; new: string } | null {
  const old = labelOf(before);
  const value = labelOf(after);
  return old !== null && value !== null && old !== value ? { old, new: value } : null;
}
