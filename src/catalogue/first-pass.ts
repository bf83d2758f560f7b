/**
 * The catalogue's first pass over the list pages (build-catalogue.ts): where each record lives, what it is called,
 * who points at it, where the relationships given with links only lead, and what each collection is; the downloads'
 * survey and the Changes page's comparison from the same read; and what the second pass shares.
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
import { SurveyBuilder, type Survey } from '../export/survey.js';
import {
  breather,
  CollectionRecordsBuilder,
  RECORDS_PER_CHECK,
  type CollectionRecords,
} from '../diff/collection-records.js';

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
  changes: ChangesFeed;
  /** Stops the comparison with the snapshot before when the run is asked to stop. */
  signal?: AbortSignal;
  /** Told each of the two reads as it starts, for the progress of a long run. */
  stage?: (text: string) => void;
  /** Runs the downloads' share of the work, for a caller that times it apart (finalize's phases). */
  timeDownloads?: <T>(work: () => T) => T;
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
  /** What the downloads must know before their first line (export/survey.ts), from pass 1. */
  survey: Survey;
  /** The comparison the Changes page shows, made in pass 1. */
  changes: CatalogueChanges;
  records: CatalogueRecords;
  info: Map<string, CollectionInfo>;
  site: RecordSite;
  write: (file: string, html: string) => void;
  timeDownloads: <T>(work: () => T) => T;
}

/**
 * The Changes page's comparison (src/pipeline/changes-since.ts), fed the new snapshot's collections as the first pass
 * reads them, so that the comparison does not read the new snapshot again.
 */
export interface ChangesFeed {
  /** Whether there is a snapshot to compare with: the first pass then gathers each collection's records for it. */
  readonly comparing: boolean;
  /** The new snapshot's collection `name`, read (collections in name order). */
  collection(name: string, records: CollectionRecords): Promise<void>;
  result(): Promise<CatalogueChanges>;
}

/** A Changes page that compares nothing (`why`). */
export function noComparison(why: 'first' | 'unreadable'): ChangesFeed {
  return {
    comparing: false,
    collection: () => Promise.resolve(),
    result: () => Promise.resolve({ against: null, why }),
  };
}

/** What pass 1 gathers across records. */
interface FirstPassIndex {
  reader: SnapshotReader;
  records: CatalogueRecords;
  linksOnly: Map<string, unknown>;
  communities: Map<string, { type: string; id: string }>;
}

/** Pass 1's work on one record: kept out of the pass's loop, so that the loop stays small to compile. */
function indexRecord(index: FirstPassIndex, collection: string, count: CollectionInfo, resource: SnapshotRecord): void {
  const { records, reader, linksOnly, communities } = index;
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
  // Relationships given with links only, read here once for every record a list gives (the downloads of a
  // record listed in two collections ask in both); their targets' pages list who points at them.
  const keeps = records.find(resource.type, resource.id)!.collection === collection;
  for (const name of reader.linksOnlyNames(resource)) {
    const data = reader.relationshipData(collection, resource, name);
    if (!keeps) continue;
    // Most lead nowhere (`data: null`): only the others are kept (record-page.ts reads a missing one as that).
    if (data !== null) linksOnly.set(flatKey(resource.type, resource.id, name), data);
    for (const target of linkages(data)) records.addReference(target.type, target.id, self, name);
  }
  count.root ??= firstTarget(resource, 'root');
  const community = firstTarget(resource, 'community');
  if (community) communities.set(flatKey(resource.type, resource.id), community);
}

/**
 * Pass 1, the one read of every list page and of every links-only relationship's documents: where each record
 * lives, what it is called, who points at it, what each collection is; the downloads' survey; and the new side of
 * the Changes page's comparison, a collection at a time.
 */
async function firstPass(input: CatalogueInput) {
  const records = new CatalogueRecords();
  const info = new Map<string, CollectionInfo>();
  /** A community variant's `community` target, by the variant's type and id. */
  const communities = new Map<string, { type: string; id: string }>();
  /** Where the relationships given with links only lead (RecordSite.linksOnly). */
  const linksOnly = new Map<string, unknown>();
  const survey = new SurveyBuilder();
  const { reader, changes } = input;
  input.stage?.(
    changes.comparing
      ? "the catalogue's index of the records, compared with the snapshot --out held for the Changes page…"
      : "the catalogue's index of the records…",
  );
  // Pass 2 (the pages, the downloads) asks for the same relationships: answered from here, not read again.
  reader.keepLinksOnlyAnswers();
  let read = 0;
  const index: FirstPassIndex = { reader, records, linksOnly, communities };
  for (const collection of reader.collections()) {
    const count: CollectionInfo = { records: 0, skipped: 0, statuses: new Map(), hasStatus: false, letters: new Set() };
    info.set(collection, count);
    survey.begin(collection);
    const compared = changes.comparing ? new CollectionRecordsBuilder(reader, collection) : null;
    for (const list of reader.pages(collection)) {
      count.skipped += list.others.length;
      compared?.addOthers(list);
      for (const resource of list.records) {
        indexRecord(index, collection, count, resource);
        survey.add(resource);
        if (compared !== null) {
          compared.add(resource);
          if (++read % RECORDS_PER_CHECK === 0) await breather(input.signal);
        }
      }
    }
    survey.end(true);
    if (compared !== null) await changes.collection(collection, compared.done());
  }
  reader.settleLinksOnly();
  return { records, info, communities, linksOnly, survey: survey.survey, changes: await changes.result() };
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
export async function catalogueOf(input: CatalogueInput, counter: { pages: number }): Promise<Catalogue> {
  const { layout, writer } = input;
  const { records, info, communities, linksOnly, survey, changes } = await firstPass(input);
  const names = new HumanNames(input.names);
  const titles = collectionTitles(records, info, names);
  return {
    input,
    survey,
    changes,
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
      changes: changeNotes(changes, { records, titles, names }),
    },
    write: (file, html) => {
      writer.write(file, html);
      counter.pages++;
    },
    timeDownloads: input.timeDownloads ?? ((work) => work()),
  };
}
