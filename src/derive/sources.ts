/**
 * For a URL the lists led to: which kind of document it is, and what it can be derived from (its sources), or why
 * it cannot be derived and must be fetched. Pure: it reads the URL, the list entries and, for a relationship given
 * with links only, the linkage its fetched relationship document gave.
 */
import { isObject } from '../json/is-object.js';
import { stringifyJson } from '../json/parse-json.js';
import type { ApiLocation } from '../url/api-location.js';
import type { UrlSpace } from '../url/url-space.js';
import type { EntryIndex } from './entries.js';
import type { DocumentKind, FetchReason } from '../format/derive-manifest.js';
import type { Sources } from './template.js';

export type Derivation =
  | {
      readonly derivable: true;
      readonly kind: DocumentKind;
      readonly collection: string;
      /** Documents of a kind that differ in what they hold (null, empty, linked): each is sampled at least once. */
      readonly stratum: string;
      readonly sources: Sources;
    }
  | {
      readonly derivable: false;
      readonly kind: DocumentKind | null;
      readonly collection: string | null;
      readonly reason: FetchReason;
    };

function sameUrl(urls: UrlSpace, link: unknown, base: string, url: string): boolean {
  if (typeof link !== 'string') return false;
  try {
    return urls.canonical(link, base) === url;
  } catch {
    return false;
  }
}

/** Sources common to relationship and related documents: the relationship object's parts. */
function relationshipSources(relationship: Record<string, unknown>): Map<string, string> {
  const sources = new Map<string, string>();
  const links = relationship.links;
  if (isObject(links)) {
    if (typeof links.self === 'string') sources.set('relationship.links.self', stringifyJson(links.self));
    if (typeof links.related === 'string') sources.set('relationship.links.related', stringifyJson(links.related));
    sources.set('relationship.links', stringifyJson(links));
  }
  if ('meta' in relationship) sources.set('relationship.meta', stringifyJson(relationship.meta));
  return sources;
}

function stratumOf(linkage: unknown): string {
  if (linkage === null) return 'null';
  if (Array.isArray(linkage)) return linkage.length === 0 ? 'empty' : 'linked';
  return 'linked';
}

/**
 * What `url` (canonical, at `location`) can be derived from. `linkageOf` gives the linkage text that the fetched
 * relationship document of a links-only relationship held (by the relationship document's canonical URL).
 */
export function derivationOf(
  url: string,
  location: ApiLocation,
  index: EntryIndex,
  linkageOf: (relationshipUrl: string) => string | undefined,
): Derivation {
  if (location.kind !== 'record' && location.kind !== 'relationship' && location.kind !== 'related') {
    return { derivable: false, kind: null, collection: null, reason: 'not-derivable' };
  }
  const { collection } = location;
  const entry = index.record(collection, location.id);
  const kindGuess: DocumentKind =
    location.kind === 'record' ? 'record' : location.kind === 'relationship' ? 'relationship-to-one' : 'related-to-one';
  if (entry === undefined) return { derivable: false, kind: kindGuess, collection, reason: 'not-in-lists' };
  if (entry.text === null) return { derivable: false, kind: kindGuess, collection, reason: 'conflicting-entries' };
  const resource = index.parse(entry.text);
  const self = (resource.links as Record<string, unknown>).self as string;
  if (location.kind === 'record') {
    const sources = new Map([
      ['entry', entry.text],
      ['entry.links.self', stringifyJson(self)],
    ]);
    return { derivable: true, kind: 'record', collection, stratum: 'record', sources };
  }
  if (location.kind === 'related' && location.page !== 1) {
    return { derivable: false, kind: 'related-to-many', collection, reason: 'not-derivable' };
  }
  const relationships = resource.relationships;
  const relationship = isObject(relationships) ? relationships[location.relationship] : undefined;
  if (!isObject(relationship) || !isObject(relationship.links)) {
    return { derivable: false, kind: kindGuess, collection, reason: 'not-derivable' };
  }
  const role = location.kind === 'relationship' ? 'self' : 'related';
  if (!sameUrl(index.urls, relationship.links[role], self, url)) {
    return { derivable: false, kind: kindGuess, collection, reason: 'not-derivable' };
  }
  const sources = relationshipSources(relationship);
  let linkageText: string;
  if ('data' in relationship) {
    linkageText = stringifyJson(relationship.data);
  } else {
    if (location.kind === 'relationship') {
      return { derivable: false, kind: kindGuess, collection, reason: 'links-only' };
    }
    let relationshipUrl: string | undefined;
    try {
      const link = relationship.links.self;
      relationshipUrl = typeof link === 'string' ? index.urls.canonical(link, self) : undefined;
    } catch {
      relationshipUrl = undefined;
    }
    const learned = relationshipUrl === undefined ? undefined : linkageOf(relationshipUrl);
    if (learned === undefined) return { derivable: false, kind: kindGuess, collection, reason: 'linkage-unknown' };
    linkageText = learned;
  }
  const linkage: unknown = 'data' in relationship ? relationship.data : JSON.parse(linkageText);
  const toMany = Array.isArray(linkage);
  sources.set('linkage', linkageText);
  if (toMany) sources.set('count', String(linkage.length));
  const stratum = stratumOf(linkage);
  if (location.kind === 'relationship') {
    const kind: DocumentKind = toMany ? 'relationship-to-many' : 'relationship-to-one';
    // The linkage comes first: a relationship document's data is its linkage.
    return { derivable: true, kind, collection, stratum, sources: new Map([['linkage', linkageText], ...sources]) };
  }
  const kind: DocumentKind = toMany ? 'related-to-many' : 'related-to-one';
  const targets = targetTexts(linkage, index);
  if (targets === null) return { derivable: false, kind, collection, reason: 'target-not-in-lists' };
  return { derivable: true, kind, collection, stratum, sources: new Map([['targets', targets], ...sources]) };
}

/** The related document's data: the targets' list entries (or null), or null when one is in no list. */
function targetTexts(linkage: unknown, index: EntryIndex): string | null {
  const one = (identifier: unknown): string | null => {
    if (!isObject(identifier) || typeof identifier.type !== 'string' || typeof identifier.id !== 'string') {
      return null;
    }
    return index.target(identifier.type, identifier.id)?.text ?? null;
  };
  if (linkage === null) return 'null';
  if (!Array.isArray(linkage)) return one(linkage);
  const texts: string[] = [];
  for (const identifier of linkage) {
    const text = one(identifier);
    if (text === null) return null;
    texts.push(text);
  }
  return `[${texts.join(',')}]`;
}
