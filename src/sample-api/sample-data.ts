/**
 * The sample API's data set: pure and deterministic (same seed and size, same records). `records` base records per
 * collection; every case the spec names is present once records >= 3:
 *
 * - ids are numeric text with gaps, never simply 1..n (spec 2.1);
 * - community ids equal to and different from their root's id, and a base term with several community records,
 *   one per community (spec 2.4 rules 1–2);
 * - a PENDING SiteUsage with a requester, null global_provenance and empty site_types, next to ACCEPTED records
 *   with no requester, a provenance and linked site types (spec 3);
 * - null and empty-string attributes (spec 2.3), non-ASCII text, notes holding HTML markup and `&` (as real
 *   vocabularies' free text does), action categories with and without action types.
 *
 * `release: 1` gives the "next release" of the same seed and size: release 0 with the known edits of release.ts
 * (additions, removals, attribute edits, a PENDING term accepted, a rename, retargeted relationships), listed in
 * `changes` so that a diff of the two can be checked against them.
 */
import { CATALOGUE, COMMUNITIES, GLOBAL_PROVENANCES, type CollectionDefinition } from './catalogue.js';
import type { AttributeValue, MutableRecord, RelationshipValue, SampleRecord } from './records.js';
import { applyRelease, releaseDate, type ReleaseChange } from './release.js';
import { createRandom, hash32, type Random } from './hash.js';
import {
  COMMUNITY_NAMES,
  LOCAL_DEFINITION,
  PROVENANCES,
  REQUESTERS,
  VOCABULARIES,
  categoryOf,
  entryAt,
  provenanceText,
  sourceOf,
  termAt,
} from './words.js';

export interface SampleCollection extends CollectionDefinition {
  /** In ascending numeric id order, the order of the list pages. */
  readonly records: readonly SampleRecord[];
  readonly byId: ReadonlyMap<string, SampleRecord>;
}

export interface SampleData {
  readonly seed: number;
  /** Base records per collection. */
  readonly records: number;
  /** 0, or the later release whose edits `changes` lists. */
  readonly release: number;
  /** What this release changed relative to release 0 of the same seed and size: every record-level difference. */
  readonly changes: readonly ReleaseChange[];
  /** Sent as the root index's Last-Modified; later for a later release. */
  readonly lastModified: Date;
  /** Every collection of spec 2.2, in root-index order. */
  readonly collections: readonly SampleCollection[];
  readonly byName: ReadonlyMap<string, SampleCollection>;
}

export interface SampleDataOptions {
  seed?: number;
  records?: number;
  /** 0 (the default) or 1, the "next release": a known set of edits (release.ts); needs records >= 5. */
  release?: number;
}

/** Ascending ids starting near 1, with a gap after the first and more at random. */
function makeIds(count: number, first: number, random: Random): string[] {
  const ids: string[] = [];
  let id = first;
  for (let i = 0; i < count; i += 1) {
    ids.push(String(id));
    id += 1 + (i === 0 ? 1 + random.int(3) : random.chance(0.3) ? 1 + random.int(4) : 0);
  }
  return ids;
}

/** `value` most of the time, else an empty string or null (spec 2.3: both occur). */
function sometimes(random: Random, value: string, emptyRate = 0.1, nullRate = 0.1): AttributeValue {
  const roll = random.next();
  if (roll < nullRate) return null;
  if (roll < nullRate + emptyRate) return '';
  return value;
}

function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
}

/** A term's abbreviation: the initials of its words, or the first letters of a single word. */
function initials(term: string): string {
  const words = term.split(/[\s-]+/).filter((word) => /^\p{L}/u.test(word));
  if (words.length < 2) return term.slice(0, 3).toUpperCase();
  return words.map((word) => word.slice(0, 1).toUpperCase()).join('');
}

/** Where a term is described at its source: the SPDX page of a license, else the vocabulary's own page. */
function provenanceUri(collection: string, term: string): string {
  if (collection === 'licenses') return `https://spdx.org/licenses/${term}`;
  return `https://vocab.example.org/${collection}/${slug(term) || 'term'}`;
}

function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new RangeError(`index ${index} outside a list of ${items.length}`);
  return item;
}

class Builder {
  readonly ids = new Map<string, string[]>();
  readonly records = new Map<string, MutableRecord[]>();

  constructor(
    readonly seed: number,
    readonly count: number,
    readonly release: number,
  ) {
    for (const def of CATALOGUE) {
      if (def.kind === 'community') continue;
      const random = createRandom(seed, `ids:${def.name}`);
      this.ids.set(def.name, makeIds(count, 1 + random.int(4), random));
    }
    for (const def of CATALOGUE) {
      if (def.kind !== 'community' || def.root === undefined) continue;
      // spec 2.4 rule 2: the first community record shares its root's id; the next one (same root) cannot.
      const first = Number(this.idsOf(def.root)[0] ?? 1);
      this.ids.set(def.name, makeIds(count, first, createRandom(seed, `ids:${def.name}`)));
    }
  }

  idsOf(collection: string): string[] {
    const ids = this.ids.get(collection);
    if (ids === undefined) throw new Error(`no ids for ${collection}`);
    return ids;
  }

  random(collection: string): Random {
    return createRandom(this.seed, `records:${collection}`);
  }

  /** A target id picked at random, or null when the target collection is empty. */
  pickId(collection: string, random: Random): string | null {
    const ids = this.idsOf(collection);
    return ids.length === 0 ? null : random.pick(ids);
  }

  globalProvenances(): MutableRecord[] {
    const random = this.random(GLOBAL_PROVENANCES);
    return this.idsOf(GLOBAL_PROVENANCES).map((id, i) => {
      const [source, description, uri] = at(PROVENANCES, i % PROVENANCES.length);
      return {
        id,
        attributes: {
          name: termAt([source], Math.floor(i / PROVENANCES.length)),
          description: i === 1 ? '' : sometimes(random, description),
          uri: i === 2 || uri === null ? null : sometimes(random, uri, 0, 0.15),
        },
        relationships: {},
      };
    });
  }

  /**
   * The global provenance a collection's terms come from, by name: its source when the data set is large enough to
   * hold it, else the local definition (or the first provenance), or none in an empty data set.
   */
  provenanceOf(collection: string): { id: string; name: string } | null {
    const ids = this.idsOf(GLOBAL_PROVENANCES);
    for (const name of [sourceOf(collection), LOCAL_DEFINITION]) {
      const id = ids[PROVENANCES.findIndex(([source]) => source === name)];
      if (id !== undefined) return { id, name };
    }
    const first = ids[0];
    return first === undefined ? null : { id: first, name: at(PROVENANCES, 0)[0] };
  }

  communities(): MutableRecord[] {
    const random = this.random(COMMUNITIES);
    return this.idsOf(COMMUNITIES).map((id, i) => {
      const [name, abbreviation] = at(COMMUNITY_NAMES, i % COMMUNITY_NAMES.length);
      const round = Math.floor(i / COMMUNITY_NAMES.length);
      return {
        id,
        attributes: {
          term: round === 0 ? name : `${name} ${round + 1}`,
          abbreviation: i === 1 ? null : round === 0 ? abbreviation : `${abbreviation}${round + 1}`,
          description: sometimes(random, `Vocabulary variants agreed by the ${name} community.`),
        },
        relationships: {},
      };
    });
  }

  /** Whether global record `i` of `collection` is PENDING (spec 3: requester, no provenance, no site types). */
  isPending(collection: string, i: number, random: Random): boolean {
    if (collection === 'siteusages') return this.count >= 2 && i === this.count - 1;
    // spec 2.4: global_provenance is nullable only on SiteUsage among the tabulated types.
    if (collection === 'actioncategories' || collection === 'licenses') return false;
    return i >= 3 && random.chance(0.05);
  }

  globalRecords(def: CollectionDefinition): MutableRecord[] {
    const random = this.random(def.name);
    const entries = VOCABULARIES[def.name] ?? [[def.type, `A term of type ${def.type}.`]];
    const provenance = this.provenanceOf(def.name);
    return this.idsOf(def.name).map((id, i) => {
      const pending = this.isPending(def.name, i, random);
      let [term, definition] = entryAt(entries, i);
      const relationships: Record<string, RelationshipValue> = {
        global_provenance: pending ? null : (provenance?.id ?? null),
      };
      if (def.name === 'actiontypes') {
        // Two action types per category over the first half of the categories: the rest have none (spec 2.4 rule 3).
        const categories = this.idsOf('actioncategories');
        const index = Math.floor(i / 2) % Math.max(1, Math.ceil(categories.length / 2));
        relationships.action_category = categories[index] ?? null;
      } else if (def.name === 'measuredquantityunits') {
        // Quantity i is measured in unit i (words.ts pairs them), and both collections have this one's size.
        const quantities = this.idsOf('measuredquantities');
        const units = this.idsOf('units');
        relationships.measured_quantity = quantities[i] ?? null;
        relationships.unit = units[i] ?? null;
        const [quantity, quantityDefinition] = entryAt(VOCABULARIES.measuredquantities ?? [], i);
        const [unit, unitName] = entryAt(VOCABULARIES.units ?? [], i);
        term = `${quantity} [${unit}]`;
        definition = `${quantityDefinition.replace(/\.$/, '')}, in ${unitName.toLowerCase()}.`;
      } else if (def.name === 'siteusages') {
        const siteTypes = this.idsOf('sitetypes');
        const linked = new Set<string>();
        const wanted = pending || siteTypes.length === 0 ? 0 : 1 + random.int(Math.min(3, siteTypes.length));
        while (linked.size < wanted) linked.add(random.pick(siteTypes));
        relationships.site_types = [...linked].sort((a, b) => Number(a) - Number(b));
      }
      const source = pending ? undefined : provenance?.name;
      return {
        id,
        attributes: this.globalAttributes(def.name, i, { term, definition, source }, pending, random),
        relationships,
      };
    });
  }

  globalAttributes(
    collection: string,
    i: number,
    { term, definition, source }: { term: string; definition: string; source: string | undefined },
    pending: boolean,
    random: Random,
  ): Record<string, AttributeValue> {
    const attributes: Record<string, AttributeValue> = {
      term,
      definition: sometimes(random, definition),
      // A PENDING term has no global provenance yet, so it names none.
      provenance: source === undefined ? null : sometimes(random, provenanceText(source), 0.15, 0.15),
      provenance_uri: sometimes(random, provenanceUri(collection, term), 0.15, 0.2),
      category: sometimes(random, categoryOf(collection, term), 0.2, 0.3),
      note: sometimes(
        random,
        `Reviewed by the editors in ${2016 + random.int(9)}: "keep as is";\tsee the <b>data sheet</b> & the manual.`,
        0.2,
        0.5,
      ),
      status: pending ? 'PENDING' : 'ACCEPTED',
      requested_by_email: pending ? `${random.pick(REQUESTERS)}@example.org` : null,
      discussion_url: pending || random.chance(0.3) ? `https://codebase.example.org/cv/-/issues/${100 + i}` : null,
    };
    // spec 2.3: "empty string also occurs" and null — fixed on records 1 and 2 so every seed has them.
    if (i === 1)
      Object.assign(attributes, { definition: '', provenance: '', provenance_uri: null, note: null, category: null });
    if (i === 2)
      Object.assign(attributes, { definition: null, provenance: null, provenance_uri: '', category: '', note: '' });
    return attributes;
  }

  communityRecords(def: CollectionDefinition, root: string): MutableRecord[] {
    const random = this.random(def.name);
    const rootIds = this.idsOf(root);
    const rootTerms = this.records.get(root) ?? [];
    const communities = this.idsOf(COMMUNITIES);
    return this.idsOf(def.name).map((id, i) => {
      // Records 0 and 1 are two communities' variants of the same base term (spec 2.4 rule 1).
      const rootIndex = i <= 1 ? 0 : i - 1;
      const communityIndex = i % Math.max(1, communities.length);
      const rootTerm = rootTerms[rootIndex]?.attributes.term ?? `Term ${rootIndex}`;
      const [communityName, communityAbbreviation] = at(COMMUNITY_NAMES, communityIndex % COMMUNITY_NAMES.length);
      const term = random.chance(0.7) ? rootTerm : `${rootTerm} (${communityAbbreviation})`;
      const relationships: Record<string, RelationshipValue> = {
        root: rootIds[rootIndex] ?? null,
        community: communities[communityIndex] ?? null,
      };
      if (def.name === 'measuredquantities-communities') {
        relationships.sampling_media = this.pickId('samplingmedia', random);
        relationships.aggregation_type = this.pickId('aggregationtypes', random);
      }
      const abbreviation = root === 'units' ? rootTerm : sometimes(random, initials(rootTerm), 0, 0.4);
      const attributes: Record<string, AttributeValue> = {
        term,
        abbreviation,
        definition: sometimes(random, `${rootTerm}, as the ${communityName} community uses the term.`),
        provenance: sometimes(random, `Agreed by ${communityName} in ${2019 + random.int(6)}`, 0.2, 0.2),
        provenance_uri: sometimes(random, `https://community.example.org/${def.name}/${id}`, 0.15, 0.3),
        note: sometimes(random, 'Agreed at the annual meeting.', 0.2, 0.4),
      };
      // spec 2.3: null and empty strings both occur — fixed on records 1 and 2 so every seed has them.
      if (i === 1)
        Object.assign(attributes, {
          abbreviation: null,
          definition: null,
          provenance: '',
          provenance_uri: '',
          note: null,
        });
      if (i === 2) Object.assign(attributes, { definition: '', provenance: null, provenance_uri: null, note: '' });
      return {
        id,
        attributes,
        relationships,
      };
    });
  }

  build(): SampleData {
    this.records.set(GLOBAL_PROVENANCES, this.globalProvenances());
    this.records.set(COMMUNITIES, this.communities());
    for (const def of CATALOGUE) {
      if (def.kind === 'global' && def.name !== GLOBAL_PROVENANCES) this.records.set(def.name, this.globalRecords(def));
    }
    // spec 2.4 rule 3: action_types is the inverse of each action type's action_category.
    const byCategory = new Map<string, string[]>();
    for (const actionType of this.records.get('actiontypes') ?? []) {
      const category = actionType.relationships.action_category;
      if (typeof category !== 'string') continue;
      const list = byCategory.get(category) ?? [];
      list.push(actionType.id);
      byCategory.set(category, list);
    }
    for (const category of this.records.get('actioncategories') ?? []) {
      category.relationships.action_types = byCategory.get(category.id) ?? [];
    }
    for (const def of CATALOGUE) {
      if (def.kind === 'community' && def.root !== undefined)
        this.records.set(def.name, this.communityRecords(def, def.root));
    }
    const changes = applyRelease(this.records, this.release, this.count);
    const collections = CATALOGUE.map((def): SampleCollection => {
      const records = this.records.get(def.name) ?? [];
      return { ...def, records, byId: new Map(records.map((record) => [record.id, record])) };
    });
    // A fixed day in 2024 chosen by the seed: stable across runs, different across seeds.
    const day = hash32(`last-modified:${this.seed}`) % 366;
    return {
      seed: this.seed,
      records: this.count,
      release: this.release,
      changes,
      lastModified: releaseDate(new Date(Date.UTC(2024, 0, 1) + day * 86_400_000 + 9 * 3_600_000), this.release),
      collections,
      byName: new Map(collections.map((collection) => [collection.name, collection])),
    };
  }
}

export function createSampleData(options: SampleDataOptions = {}): SampleData {
  const seed = options.seed ?? 1;
  const records = options.records ?? 12;
  if (!Number.isSafeInteger(records) || records < 0) {
    throw new RangeError(`records must be a whole number >= 0, got ${records}`);
  }
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
  return new Builder(seed, records, options.release ?? 0).build();
}
