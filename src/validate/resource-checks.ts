/**
 * Checks on one resource object wherever it appears (list data, record, related, included): its own address,
 * its relationships' counts and targets, and, for the types the spec tabulates, their exact shape.
 */
import type { ApiLocation } from '../url/api-location.js';
import { CV_TYPES, OBSERVED_STATUSES } from './cv-types.js';
import { isObject } from '../json/is-object.js';
import { type DocumentFindings, type JsonObject } from './document-findings.js';
import { relationshipsObject, resourceObject } from './json-api-schema.js';
import { escapePointerSegment, jsonPointer } from './rules.js';

const NUMERIC_ID = /^\d+$/;
/** Deliberately loose: one @ with text on both sides and no spaces; the point is to catch non-addresses. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function linkHref(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.href === 'string') return value.href;
  return undefined;
}

/**
 * Spec 2.1: links.self is `<root><collection>/<id>/`. `collection` is what it must name when the context tells
 * (a list's collection, a record's URL, a tabulated type); otherwise only the id is checked.
 */
function checkSelf(
  doc: DocumentFindings,
  resource: JsonObject,
  pointer: string,
  label: string,
  id: string,
  collection: string | undefined,
): void {
  const links = resource.links;
  const self = isObject(links) ? linkHref(links.self) : undefined;
  if (self === undefined) {
    doc.add(
      isObject(links) ? `${pointer}/links` : pointer,
      'record.self',
      `${label} has no links.self; spec 2.1 gives every resource the address of its record, and clients store it as ` +
        `the term's URI.`,
    );
    return;
  }
  if (collection !== undefined) {
    // The source's own spelling on the hot path; anything else goes through canonical URLs below.
    const expected = `${doc.root}${collection}/${id}/`;
    if (self === expected || self === `${expected}?format=api`) return;
  }
  let location: ApiLocation | undefined;
  try {
    // Resolved against the document, so links a snapshot rewrote to root-relative paths still validate.
    location = doc.urls.resolve(self, doc.url).location;
  } catch {
    location = undefined;
  }
  const named = collection === undefined ? `a record with id ${id}` : `${collection}/${id}/`;
  if (
    location === undefined ||
    location.kind !== 'record' ||
    location.id !== id ||
    (collection !== undefined && location.collection !== collection)
  ) {
    doc.add(
      `${pointer}/links/self`,
      'record.self',
      `${label}: links.self ${JSON.stringify(self)} does not address ${named} under ${doc.root}; clients store ` +
        `links.self as the term's permanent URI, so report it to the service maintainers.`,
    );
  }
}

function checkRelationships(doc: DocumentFindings, relationships: JsonObject, pointer: string, label: string): void {
  for (const name in relationships) {
    const relationship = relationships[name];
    if (!isObject(relationship)) continue;
    const base = `${pointer}/relationships/${escapePointerSegment(name)}`;
    const data = relationship.data;
    if (Array.isArray(data)) {
      for (let i = 0; i < data.length; i++) doc.addTarget(name, data[i], `${base}/data/${i}`);
      const meta = relationship.meta;
      // Spec 2.4 rule 3 (docs/source-api.md#relationships): a to-many meta.count is the length of data.
      if (isObject(meta) && typeof meta.count === 'number' && meta.count !== data.length) {
        doc.add(
          `${base}/meta/count`,
          'relationship.count',
          `${label}: relationship ${name} says meta.count ${meta.count} but lists ${data.length} targets; clients ` +
            `that read the count will disagree with the data.`,
        );
      }
    } else if (data !== undefined) {
      doc.addTarget(name, data, `${base}/data`);
    }
  }
}

function isAbsoluteUrl(text: string): boolean {
  return URL.canParse(text);
}

/** Spec 2.3 and 3: status values and the URI / URL / e-mail attributes, as warnings. */
function checkAttributeValues(doc: DocumentFindings, attributes: JsonObject, pointer: string, label: string): void {
  const { status, provenance_uri, discussion_url, requested_by_email } = attributes;
  if (typeof status === 'string' && !OBSERVED_STATUSES.has(status)) {
    doc.add(
      `${pointer}/attributes/status`,
      'cv.status',
      `${label}: status ${JSON.stringify(status)} is not one of the observed values ACCEPTED and PENDING (spec 3); ` +
        `check that clients filtering on status handle it.`,
    );
  }
  // Spec 2.3: an empty provenance_uri occurs; discussion_url and requested_by_email have no such note.
  if (typeof provenance_uri === 'string' && provenance_uri !== '' && !isAbsoluteUrl(provenance_uri)) {
    doc.add(
      `${pointer}/attributes/provenance_uri`,
      'cv.format',
      `${label}: provenance_uri ${JSON.stringify(provenance_uri)} is not an absolute URI (spec 2.3); fix the record ` +
        `at the source.`,
    );
  }
  if (typeof discussion_url === 'string' && !isAbsoluteUrl(discussion_url)) {
    doc.add(
      `${pointer}/attributes/discussion_url`,
      'cv.format',
      `${label}: discussion_url ${JSON.stringify(discussion_url)} is not an absolute URL (spec 2.3); fix the record ` +
        `at the source.`,
    );
  }
  if (typeof requested_by_email === 'string' && !EMAIL.test(requested_by_email)) {
    doc.add(
      `${pointer}/attributes/requested_by_email`,
      'cv.format',
      `${label}: requested_by_email ${JSON.stringify(requested_by_email)} is not an e-mail address (spec 2.3); fix ` +
        `the record at the source.`,
    );
  }
}

/**
 * Checks the resource at `path` and records it and its targets for the summary. `collection` is the collection
 * its links.self must name, when known.
 */
export function checkResource(
  doc: DocumentFindings,
  resource: unknown,
  path: readonly (string | number)[],
  collection: string | undefined,
): void {
  if (!isObject(resource)) return;
  const pointer = jsonPointer(path);
  const { type, id } = resource;
  if (typeof type !== 'string' || typeof id !== 'string') return;
  doc.resources.push([type, id]);
  const label = `${type} ${id}`;
  if (!NUMERIC_ID.test(id)) {
    doc.add(`${pointer}/id`, 'resource.id', `${label}: the id is not numeric text as spec 2.1 describes.`);
  }
  const cvType = CV_TYPES.get(type);
  checkSelf(doc, resource, pointer, label, id, collection ?? cvType?.collection);
  if (isObject(resource.relationships)) checkRelationships(doc, resource.relationships, pointer, label);
  if (cvType === undefined) {
    if (resource.relationships === undefined) return;
    const result = relationshipsObject.safeParse(resource.relationships);
    if (!result.success)
      doc.addIssues(result.error.issues, [...path, 'relationships'], label, () => 'jsonapi.document');
    return;
  }
  const result = cvType.schema.safeParse(resource);
  if (!result.success) {
    // The exact schema is stricter than JSON:API, so on failure the generic schema says which problems break
    // JSON:API itself; those are reported once, as jsonapi.document.
    const generic = resourceObject.safeParse(resource);
    const start = doc.findings.length;
    if (!generic.success) doc.addIssues(generic.error.issues, path, label, () => 'jsonapi.document');
    const genericPointers = doc.findings.slice(start).map((f) => f.pointer);
    const cvStart = doc.findings.length;
    doc.addIssues(result.error.issues, path, label, (relative) =>
      relative[0] === 'relationships' ? 'cv.relationships' : 'cv.attributes',
    );
    doc.dropRestated(cvStart, genericPointers);
  }
  if (isObject(resource.attributes)) checkAttributeValues(doc, resource.attributes, pointer, label);
}
