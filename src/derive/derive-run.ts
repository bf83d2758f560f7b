/**
 * One derived crawl, as decisions over URLs: the crawl (src/crawl/, src/pipeline/) fetches, validates and writes;
 * this decides what to fetch and what to derive, learns and checks each kind's shape, and keeps the account the
 * manifest and the report show. The order of work:
 *
 * 1. the root and every list page are fetched (the crawl defers every record, relationship and related URL);
 * 2. what cannot be derived is fetched: documents no list explains, and the relationship document of each
 *    relationship given with links only (its related document then follows from the linkage it holds);
 * 3. the sample is fetched, each kind's shape learned from it and checked against it; a kind whose check fails in
 *    a collection is fetched in full there;
 * 4. everything else is derived and stored through the same pipeline as a fetched document.
 *
 * What a fetched document taught (list entries, linkages, samples) is recorded as it is learned (`record`), so that
 * `--resume` can rebuild this state without fetching it again.
 */
import { stringifyJson } from '../json/parse-json.js';
import type { ApiLocation } from '../url/api-location.js';
import type { UrlSpace } from '../url/url-space.js';
import { EntryIndex } from './entries.js';
import { EntryTexts } from './entry-texts.js';
import { DOCUMENT_KINDS, type DocumentKind, type FetchReason } from '../format/derive-manifest.js';
import { kindKey } from './kinds.js';
import { learnKind, type Mismatch, type Sample } from './learn.js';
import { sampleRank, selectSample, type SampleSize } from './sample.js';
import { derivationOf, type Derivation } from './sources.js';
import { describeTemplate, fillTemplate, type Template } from './template.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { UrlList } from './url-list.js';

/** A line of the derive journal: what `--resume` needs to take up a derived crawl where it stopped. */
export type DeriveRecord =
  | { t: 'derive'; seed: number; sample: SampleSize }
  | { t: 'list'; url: string; text: string }
  | { t: 'linkage'; url: string; text: string }
  | { t: 'sample'; url: string; text: string };

/** What the crawl offers a derived crawl. */
export interface DeriveHost {
  /** Fetches the URLs through the crawl's pipeline (each document passes `observe` first); new links are followed. */
  fetch(urls: readonly string[]): Promise<void>;
  /** Stores a derived document through the same pipeline as a fetched one. */
  store(url: string, text: string): Promise<void>;
  /** Whether the URL is settled already (by an interrupted run, with --resume). */
  settled(url: string): boolean;
  locate(url: string): ApiLocation;
}

/** Why the documents of one kind in one collection were fetched rather than derived. */
export type KindStatus = 'derived' | 'fetched';

export interface KindAccount {
  collection: string;
  kind: DocumentKind;
  /** Documents of this kind in this collection that the lists led to. */
  documents: number;
  derived: number;
  fetched: number;
  /** `derived`, or `fetched` when a sample differed (every document fetched). */
  status: KindStatus;
  /**
   * Why documents were fetched: `sample`, `mismatch` (a sample differed), `unchecked` (no sample could be read, with
   * --allow-partial), `no-source`, or a reason a document cannot be derived.
   */
  fetchedBecause: Partial<Record<'sample' | 'mismatch' | 'unchecked' | 'no-source' | FetchReason, number>>;
  /** The learned shape, such as `{data: entry}`; null when nothing was learned. */
  shape: string | null;
}

/** A URL that cannot be derived: what its account counts. */
type Underivable = Exclude<Derivation, { derivable: true }>;

/**
 * The derivable URLs of one kind in one collection, as indices in the run's UrlList (in the code-unit order of their
 * URLs once the plan is made).
 */
interface KindGroup {
  collection: string;
  kind: DocumentKind;
  urls: number[];
  /** Each URL's stratum, until the sample is chosen (then emptied). */
  strata: string[];
}

/** What checking the kinds found, by kind key: the learned templates, and the kinds fetched in full. */
interface KindChecks {
  templates: Map<string, Template>;
  /** Kinds whose check failed, or could not be made. */
  failed: Set<string>;
  /** Kinds of which no sample could be read (--allow-partial). */
  unchecked: Set<string>;
}

/** Kinds of the URLs a derived crawl defers until the lists are read. */
export function isDerivableLocation(location: ApiLocation): boolean {
  return location.kind === 'record' || location.kind === 'relationship' || location.kind === 'related';
}

export class DeriveRun {
  readonly index: EntryIndex;
  /** The derivable URLs, kept as bytes (a plan of 200,000 URLs as strings was tens of megabytes of heap). */
  #planned: UrlList;
  readonly #linkages = new Map<string, string>();
  readonly #samples = new Map<string, string>();
  /** URLs whose fetched text is wanted: samples and links-only relationship documents. */
  readonly #wanted = new Map<string, 'sample' | 'linkage'>();
  readonly #accounts = new Map<string, KindAccount>();
  readonly #mismatches: Mismatch[] = [];
  derived = 0;

  constructor(
    urls: UrlSpace,
    readonly seed: number,
    readonly sample: SampleSize,
    /** Writes a line of the derive journal. */
    private readonly record: (line: DeriveRecord) => void,
    /** Where the list entries' texts are kept (a scratch file); in memory when there is none. */
    entriesFile?: string,
  ) {
    this.index = new EntryIndex(urls, new EntryTexts(entriesFile));
    this.#planned = new UrlList();
  }

  /** The derive journal's first line. */
  start(): void {
    this.record({ t: 'derive', seed: this.seed, sample: this.sample });
  }

  /** Takes a line of the derive journal of an interrupted run. */
  replay(line: DeriveRecord): void {
    if (line.t === 'list') this.index.addPage(line.url, JSON.parse(line.text));
    else if (line.t === 'linkage') this.#linkages.set(line.url, line.text);
    else if (line.t === 'sample') this.#samples.set(line.url, line.text);
  }

  /** Sees a fetched document before its links are rewritten: lists, samples and linkages are what it learns from. */
  observe(url: string, location: ApiLocation, document: unknown): void {
    if (location.kind === 'list') {
      this.index.addPage(url, document);
      this.record({ t: 'list', url, text: stringifyJson(document) });
      return;
    }
    const wanted = this.#wanted.get(url);
    if (wanted === 'sample') {
      const text = stringifyJson(document);
      this.#samples.set(url, text);
      this.record({ t: 'sample', url, text });
    } else if (wanted === 'linkage') {
      const data = (document as { data?: unknown } | null)?.data;
      const text = data === undefined ? 'null' : stringifyJson(data);
      this.#linkages.set(url, text);
      this.record({ t: 'linkage', url, text });
    }
  }

  get mismatches(): readonly Mismatch[] {
    return [...this.#mismatches].sort((a, b) => byCodeUnits(a.url, b.url));
  }

  /** Per kind and collection, sorted. */
  get accounts(): KindAccount[] {
    return [...this.#accounts.values()].sort(
      (a, b) =>
        byCodeUnits(a.collection, b.collection) || DOCUMENT_KINDS.indexOf(a.kind) - DOCUMENT_KINDS.indexOf(b.kind),
    );
  }

  #account(collection: string, kind: DocumentKind): KindAccount {
    const key = kindKey({ collection, kind });
    let account = this.#accounts.get(key);
    if (account === undefined) {
      account = {
        collection,
        kind,
        documents: 0,
        derived: 0,
        fetched: 0,
        status: 'derived',
        fetchedBecause: {},
        shape: null,
      };
      this.#accounts.set(key, account);
    }
    return account;
  }

  #fetched(account: KindAccount | null, because: keyof KindAccount['fetchedBecause']): void {
    if (account === null) return;
    account.fetched += 1;
    account.fetchedBecause[because] = (account.fetchedBecause[because] ?? 0) + 1;
  }

  /** Fetches what is not settled yet. */
  async #fetch(host: DeriveHost, urls: Iterable<string>): Promise<void> {
    const pending = [...urls].filter((url) => !host.settled(url)).sort();
    if (pending.length > 0) await host.fetch(pending);
  }

  /**
   * Steps 2 to 4 over `deferred`, the record, relationship and related URLs the lists led to (all of them, settled
   * ones included: the sample depends on the whole set). `deferred` is read once, before anything is fetched.
   */
  async run(deferred: Iterable<string>, host: DeriveHost): Promise<void> {
    // What each URL is, without its sources: those are built again when needed, so that memory holds one entry
    // text per record rather than a copy per document.
    const groups = await this.#plan(deferred, host);
    const sampled = await this.#fetchSample(groups, host);
    const checks: KindChecks = { templates: new Map(), failed: new Set(), unchecked: new Set() };
    await this.#checkKinds(groups, sampled, checks, host);
    await this.#fetchFailedKinds(groups, sampled, checks, host);
    await this.#deriveRest(groups, sampled, checks, host);
  }

  /** Lets go of what the run learned (the entries and their file); its accounts stay for the manifest. */
  close(): void {
    this.index.close();
    this.#planned = new UrlList();
    this.#linkages.clear();
    this.#samples.clear();
    this.#wanted.clear();
  }

  /**
   * Step 2 and the grouping: what is not derivable is fetched, and the rest grouped by kind, each group in the
   * code-unit order of its URLs and the groups in the order of their first URLs (as if every URL were taken in
   * order). Only the URLs to fetch are kept as strings: a derivable one goes to its group at once, as bytes.
   */
  async #plan(deferred: Iterable<string>, host: DeriveHost): Promise<Map<string, KindGroup>> {
    const groups = new Map<string, KindGroup>();
    await this.#fetchUnderivable(deferred, host, groups);
    const sorted = [...groups].map(([key, group]) => {
      const strata = new Map(group.urls.map((index, i) => [index, group.strata[i]!]));
      const urls = this.#planned.sort(group.urls);
      return [key, { ...group, urls, strata: urls.map((index) => strata.get(index)!) }] as const;
    });
    sorted.sort(([, a], [, b]) => byCodeUnits(this.#planned.get(a.urls[0]!), this.#planned.get(b.urls[0]!)));
    return new Map(sorted);
  }

  /** Adds a derivable URL to its group, and counts it in its account. */
  #group(url: string, derivation: Extract<Derivation, { derivable: true }>, groups: Map<string, KindGroup>): void {
    const key = kindKey(derivation);
    let group = groups.get(key);
    if (group === undefined) {
      group = { collection: derivation.collection, kind: derivation.kind, urls: [], strata: [] };
      groups.set(key, group);
    }
    // The URLs of a group are mostly below its collection's: that part is kept once.
    group.urls.push(this.#planned.push(url, `${this.index.urls.root}${derivation.collection}/`));
    group.strata.push(derivation.stratum);
    this.#account(derivation.collection, derivation.kind).documents += 1;
  }

  /** What the URL's document would be derived from, as the lists and the linkages known so far say. */
  #sourcesOf(url: string, host: DeriveHost): Derivation {
    return derivationOf(url, host.locate(url), this.index, (relationship) => this.#linkages.get(relationship));
  }

  /**
   * Step 2: fetches what cannot be derived, the links-only relationship documents first, and counts it; the rest
   * goes to `groups`. A related document of a links-only relationship is planned once its relationship document is
   * read.
   */
  async #fetchUnderivable(deferred: Iterable<string>, host: DeriveHost, groups: Map<string, KindGroup>): Promise<void> {
    const unknown: string[] = [];
    const mustFetch: string[] = [];
    const underivable: Underivable[] = [];
    for (const url of deferred) {
      const derivation = this.#sourcesOf(url, host);
      if (derivation.derivable) this.#group(url, derivation, groups);
      else if (derivation.reason === 'linkage-unknown') unknown.push(url);
      else {
        if (derivation.reason === 'links-only') this.#wanted.set(url, 'linkage');
        mustFetch.push(url);
        underivable.push(derivation);
      }
    }
    await this.#fetch(host, mustFetch);
    const stillUnknown: string[] = [];
    for (const url of unknown) {
      const derivation = this.#sourcesOf(url, host);
      if (derivation.derivable) this.#group(url, derivation, groups);
      else {
        stillUnknown.push(url);
        underivable.push(derivation);
      }
    }
    await this.#fetch(host, stillUnknown);
    for (const derivation of underivable) {
      if (derivation.collection === null || derivation.kind === null) continue;
      const account = this.#account(derivation.collection, derivation.kind);
      account.documents += 1;
      this.#fetched(account, derivation.reason);
    }
  }

  /** Step 3 begins: selects the seeded sample of the derivable URLs (group by group) and fetches it. */
  async #fetchSample(groups: ReadonlyMap<string, KindGroup>, host: DeriveHost): Promise<Set<string>> {
    const sampled = new Set<string>();
    for (const [key, group] of groups) {
      const candidates = group.urls.map((index, i) => ({
        url: this.#planned.get(index),
        group: key,
        stratum: group.strata[i]!,
      }));
      for (const url of selectSample(candidates, this.sample, this.seed)) sampled.add(url);
      group.strata = [];
    }
    for (const url of sampled) this.#wanted.set(url, 'sample');
    await this.#fetch(host, sampled);
    return sampled;
  }

  /**
   * Learns each kind's shape from its samples and checks it against them. A template with a constant seen once is
   * checked on one more document (the next in the seeded order), which joins `sampled`.
   */
  async #checkKinds(
    groups: ReadonlyMap<string, KindGroup>,
    sampled: Set<string>,
    checks: KindChecks,
    host: DeriveHost,
  ): Promise<void> {
    /** The second sample of each kind that wants one, by kind key. */
    const second = new Map<string, string>();
    for (const [key, group] of groups) {
      if (!this.#checkKind(key, group, checks, host)) continue;
      const next = this.#nextInSample(group, sampled);
      if (next !== undefined) {
        second.set(key, next);
        sampled.add(next);
        this.#wanted.set(next, 'sample');
      }
    }
    if (second.size === 0) return;
    await this.#fetch(host, second.values());
    for (const key of second.keys()) this.#checkKind(key, groups.get(key)!, checks, host);
  }

  /** The group's lowest-ranked URL not sampled yet (ties in code-unit order). */
  #nextInSample(group: KindGroup, sampled: ReadonlySet<string>): string | undefined {
    let next: { url: string; rank: number } | undefined;
    for (const index of group.urls) {
      const url = this.#planned.get(index);
      if (sampled.has(url)) continue;
      const rank = sampleRank(this.seed, url);
      if (next === undefined || rank < next.rank || (rank === next.rank && url < next.url)) next = { url, rank };
    }
    return next?.url;
  }

  /** Checks one kind on the samples read so far (into `checks`); true when it wants another sample. */
  #checkKind(key: string, group: KindGroup, checks: KindChecks, host: DeriveHost): boolean {
    const samples: Sample[] = [];
    for (const index of group.urls) {
      const url = this.#planned.get(index);
      const text = this.#samples.get(url);
      const derivation = text === undefined ? undefined : this.#sourcesOf(url, host);
      if (text !== undefined && derivation?.derivable) samples.push({ url, text, sources: derivation.sources });
    }
    // No sample could be read (--allow-partial): nothing was checked, so nothing of the kind is derived.
    if (samples.length === 0) {
      checks.unchecked.add(key);
      checks.failed.add(key);
      return false;
    }
    const verdict = learnKind(group.kind, samples, group.urls.length);
    if (!verdict.ok) {
      checks.failed.add(key);
      for (const mismatch of verdict.mismatches) this.#mismatches.push(mismatch); // not spread: up to one per sample
      return false;
    }
    checks.templates.set(key, verdict.template);
    return verdict.needsAnotherSample;
  }

  /** Samples count as fetched; a failed kind is fetched in full. */
  async #fetchFailedKinds(
    groups: ReadonlyMap<string, KindGroup>,
    sampled: ReadonlySet<string>,
    { templates, failed, unchecked }: KindChecks,
    host: DeriveHost,
  ): Promise<void> {
    const full: string[] = [];
    for (const [key, group] of groups) {
      const account = this.#account(group.collection, group.kind);
      const template = templates.get(key);
      account.shape = template === undefined || failed.has(key) ? null : describeTemplate(template);
      if (failed.has(key)) account.status = 'fetched';
      for (const index of group.urls) {
        const url = this.#planned.get(index);
        if (sampled.has(url)) this.#fetched(account, 'sample');
        else if (failed.has(key)) {
          this.#fetched(account, unchecked.has(key) ? 'unchecked' : 'mismatch');
          full.push(url);
        }
      }
    }
    await this.#fetch(host, full);
  }

  /**
   * Step 4: derives the rest; a document a slot has no source for is fetched. The documents of a collection are
   * taken in URL order across its kinds, so that a record's documents come one after another and its entry is read
   * and parsed once for all of them (the order documents are stored in changes no byte of the snapshot).
   */
  async #deriveRest(
    groups: ReadonlyMap<string, KindGroup>,
    sampled: ReadonlySet<string>,
    { templates, failed }: KindChecks,
    host: DeriveHost,
  ): Promise<void> {
    const leftovers: string[] = [];
    const collections = new Map<string, Array<{ template: Template; group: KindGroup }>>();
    for (const [key, group] of groups) {
      if (failed.has(key)) continue;
      const members = collections.get(group.collection) ?? [];
      members.push({ template: templates.get(key)!, group });
      collections.set(group.collection, members);
    }
    for (const members of collections.values()) {
      for (const { url, template, group } of this.#inUrlOrder(members)) {
        const account = this.#account(group.collection, group.kind);
        if (sampled.has(url)) continue;
        const derivation = this.#sourcesOf(url, host);
        const text = derivation.derivable ? fillTemplate(template, derivation.sources) : null;
        if (text === null) {
          leftovers.push(url);
          this.#fetched(account, 'no-source');
          continue;
        }
        account.derived += 1;
        this.derived += 1;
        if (!host.settled(url)) await host.store(url, text);
      }
    }
    await this.#fetch(host, leftovers);
  }

  /** The URLs of a few groups (each in URL order), merged into one URL order. */
  *#inUrlOrder<T extends { group: KindGroup }>(members: readonly T[]): Generator<T & { url: string }> {
    const next = members.map(() => 0);
    const heads = members.map(({ group }) => (group.urls.length > 0 ? this.#planned.get(group.urls[0]!) : null));
    for (;;) {
      let first = -1;
      for (let i = 0; i < heads.length; i += 1) {
        const head = heads[i] ?? null;
        if (head !== null && (first === -1 || head < heads[first]!)) first = i;
      }
      if (first === -1) return;
      const member = members[first]!;
      yield { ...member, url: heads[first]! };
      next[first]! += 1;
      const urls = member.group.urls;
      heads[first] = next[first]! < urls.length ? this.#planned.get(urls[next[first]!]!) : null;
    }
  }
}
