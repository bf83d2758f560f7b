/**
 * The catalogue's first pass over the list pages (build-catalogue.ts): where each record lives, what it is called,
 * who points at it, where the relationships given with links only lead, and what each collection is; and what the
 * later passes share.
 */
import { flatKey } from '../util/flat-key.js';
import { type Layout } from '../format/layout.js';
import type { TreeWriter } from '../store/writer.js';
import type { CatalogueNames } from '../format/human-names.js';
import { HumanNames } from './labels.js';
import { type RecordSite } from './record-page.js';
import { changeNotes, type CatalogueChanges } from './changes-page.js';
import { CatalogueRecords } from './records.js';
import { isObject } from '../json/is-object.js';
import { labelOf, linkagesOf as linkages, type SnapshotRecord } from '../format/records.js';
import type { SnapshotReader } from '../format/stored-records.js';
import { letterOf } from './search.js';

export interface CatalogueInput {
  layout: Layout;
  writer: TreeWriter;
  /** The reader of the snapshot's records: its collections, their list pages, where links-only relationships lead. */
  reader: SnapshotReader;
  about: {
    root: string;
    createdAt: string;
    tool: string;
    errors: number;
    warnings: number;
    /** Documents the snapshot lacks (--allow-partial), and collections published although their pages shifted. */
    missing: number;
    shifted: string[];
  };
  /** The user's names for collections and fields (`--names`), in place of the derived ones. */
  names?: CatalogueNames;
  /** What the Changes page shows: the comparison with the snapshot before (src/pipeline/changes-since.ts). */
  changes: CatalogueChanges;
}

/** What pass 1 learns of a collection. */
export interface CollectionInfo {
  records: number;
  /** List entries that are not records (no type or id), which no page shows. */
  skipped: number;
  statuses: Map<string, number>;
  /** Whether any record has a `status` attribute. */
  hasStatus: boolean;
  /** The type of its first record. */
  type?: string;
  /** The first letters of its records' labels (the A–Z index). */
  letters: Set<string>;
  /** The first `root` target of its records: a collection of community variants has one. */
  root?: { type: string; id: string };
}

/** The first linkage of a relationship, when it is given as data. */
export function firstTarget(resource: SnapshotRecord, name: string): { type: string; id: string } | undefined {
  const relationship = resource.relationships[name];
  return isObject(relationship) ? linkages(relationship.data)[0] : undefined;
}

/** Everything the passes share. */
export interface Catalogue {
  input: CatalogueInput;
  records: CatalogueRecords;
  info: Map<string, CollectionInfo>;
  site: RecordSite;
  write: (file: string, html: string) => void;
}

/** Pass 1: where each record lives, what it is called, who points at it, and what each collection is. */
function firstPass(input: CatalogueInput) {
  const records = new CatalogueRecords();
  const info = new Map<string, CollectionInfo>();
  /** A community variant's `community` target, by the variant's type and id. */
  const communities = new Map<string, { type: string; id: string }>();
  /** Where the relationships given with links only lead (RecordSite.linksOnly). */
  const linksOnly = new Map<string, unknown>();
  const { reader } = input;
  for (const collection of reader.collections()) {
    const count: CollectionInfo = { records: 0, skipped: 0, statuses: new Map(), hasStatus: false, letters: new Set() };
    info.set(collection, count);
    for (const list of reader.pages(collection)) {
      count.skipped += list.others.length;
      for (const resource of list.records) {
        count.records++;
        count.type ??= resource.type;
        const status = resource.attributes.status;
        if ('status' in resource.attributes) count.hasStatus = true;
        if (typeof status === 'string') count.statuses.set(status, (count.statuses.get(status) ?? 0) + 1);
        const label = labelOf(resource);
        count.letters.add(letterOf(label));
        const self = records.add(resource.type, resource.id, collection, label);
        for (const [name, relationship] of Object.entries(resource.relationships)) {
          if (!isObject(relationship)) continue;
          for (const target of linkages(relationship.data)) records.addReference(target.type, target.id, self, name);
        }
        // Relationships given with links only: read here, once, so that their targets' pages list who points at them.
        if (records.find(resource.type, resource.id)!.collection === collection) {
          for (const name of reader.linksOnlyNames(resource)) {
            const data = reader.relationshipData(collection, resource, name);
            // Most lead nowhere (`data: null`): only the others are kept (record-page.ts reads a missing one as that).
            if (data !== null) linksOnly.set(flatKey(resource.type, resource.id, name), data);
            for (const target of linkages(data)) records.addReference(target.type, target.id, self, name);
          }
        }
        count.root ??= firstTarget(resource, 'root');
        const community = firstTarget(resource, 'community');
        if (community) communities.set(flatKey(resource.type, resource.id), community);
      }
    }
  }
  return { records, info, communities, linksOnly };
}

/**
 * Each collection's human name: the user's, else from its records' type, or, for community variants, from their
 * roots' collection's name.
 */
function collectionTitles(
  records: CatalogueRecords,
  info: Map<string, CollectionInfo>,
  names: HumanNames,
): Map<string, string> {
  const titles = new Map<string, string>();
  for (const [collection, count] of info) titles.set(collection, names.collection(collection, count.type));
  for (const [collection, count] of info) {
    const rootCollection = count.root && records.find(count.root.type, count.root.id)?.collection;
    if (rootCollection !== undefined && rootCollection !== collection && !names.namesCollection(collection)) {
      titles.set(collection, `${titles.get(rootCollection)!}: community variants`);
    }
  }
  return titles;
}

/** The collection of a variant collection's roots, or undefined for any other collection. */
export function rootCollectionOf(c: Catalogue, collection: string): string | undefined {
  const root = c.info.get(collection)?.root;
  const found = root && c.records.find(root.type, root.id)?.collection;
  return found === collection ? undefined : found;
}

/** Pass 1 and what the later passes share: the records, the collections, their titles, the record pages' site. */
export function catalogueOf(input: CatalogueInput, counter: { pages: number }): Catalogue {
  const { layout, writer } = input;
  const { records, info, communities, linksOnly } = firstPass(input);
  const names = new HumanNames(input.names);
  const titles = collectionTitles(records, info, names);
  return {
    input,
    records,
    info,
    site: {
      layout,
      writer,
      records,
      reader: input.reader,
      titles,
      names,
      linksOnly,
      communityOf: (type, id) => {
        const community = communities.get(flatKey(type, id));
        return community ? (records.find(community.type, community.id)?.label ?? null) : null;
      },
      createdAt: input.about.createdAt,
      source: input.about.root,
      changes: changeNotes(input.changes, { records, titles, names }),
    },
    write: (file, html) => {
      writer.write(file, html);
      counter.pages++;
    },
  };
}
