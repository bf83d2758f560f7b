/**
 * Which derivable documents are fetched to check the derivation: at least one of every kind, collection and
 * stratum (null, empty or linked relationships), plus a seeded random share of each kind (`--verify-sample`).
 *
 * Membership depends only on the seed and the URLs, never on the order documents arrive in: each URL gets a rank
 * from a hash of the seed and the URL, and each group takes its lowest ranks. The same seed over the same lists
 * gives the same sample, so a run can be repeated (the seed is in the manifest).
 */
import { createHash, randomInt } from 'node:crypto';
import { UsageError } from '../util/errors.js';

/** `--verify-sample`: a share of each kind (0..1), or a number of documents of each kind. */
export type SampleSize = { readonly fraction: number } | { readonly count: number };

/**
 * 2 % of each kind in each collection, on top of one document per kind, collection and stratum. The stratified
 * minimum catches what differs for a whole kind or for every empty or null relationship (how servers differ);
 * the share looks for per-record oddities while keeping a nightly mirror of the sample API within a fifth of a full
 * crawl's requests. A release archive wants `--verify-sample 100%`.
 */
export const DEFAULT_SAMPLE: SampleSize = { fraction: 0.02 };

/** Parses `5%`, `0.05`, `1` or `100%` (everything), or a whole number of documents per kind such as `20`. */
export function parseSampleSize(text: string): SampleSize | null {
  const trimmed = text.trim();
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(trimmed);
  if (percent !== null) {
    const value = Number(percent[1]) / 100;
    return value <= 1 ? { fraction: value } : null;
  }
  if (!/^\d+(?:\.\d+)?$/.test(trimmed)) return null;
  const value = Number(trimmed);
  if (value <= 1) return { fraction: value };
  return Number.isSafeInteger(value) ? { count: value } : null;
}

export function formatSampleSize(size: SampleSize): string {
  return 'fraction' in size ? `${Number((size.fraction * 100).toPrecision(6))}%` : String(size.count);
}

/** A fresh seed for a run that was given none. */
export function randomSeed(): number {
  return randomInt(1, 2 ** 31);
}

/** The rank of `url` under `seed`: a 48-bit number from SHA-256, the same on every machine. */
export function sampleRank(seed: number, url: string): number {
  return createHash('sha256').update(`${seed}\u0000${url}`).digest().readUIntBE(0, 6);
}

export interface SampleCandidate {
  readonly url: string;
  /** The kind and collection: the share is taken per group. */
  readonly group: string;
  /** Within the group: each stratum gets at least one sample. */
  readonly stratum: string;
}

/** How many of a group of `size` documents the share takes. */
function shareOf(size: number, sample: SampleSize): number {
  if ('count' in sample) return Math.min(size, sample.count);
  return Math.min(size, Math.ceil(size * sample.fraction));
}

/** The URLs to fetch and compare: per group, the lowest-ranked of each stratum and its share of lowest ranks. */
export function selectSample(candidates: Iterable<SampleCandidate>, sample: SampleSize, seed: number): Set<string> {
  const groups = new Map<string, Array<{ url: string; stratum: string; rank: number }>>();
  for (const { url, group, stratum } of candidates) {
    let members = groups.get(group);
    if (members === undefined) groups.set(group, (members = []));
    members.push({ url, stratum, rank: sampleRank(seed, url) });
  }
  const chosen = new Set<string>();
  for (const members of groups.values()) {
    members.sort((a, b) => a.rank - b.rank || (a.url < b.url ? -1 : 1));
    const strata = new Set<string>();
    for (const member of members) {
      if (strata.has(member.stratum)) continue;
      strata.add(member.stratum);
      chosen.add(member.url);
    }
    for (const member of members.slice(0, shareOf(members.length, sample))) chosen.add(member.url);
  }
  return chosen;
}

/** `--verify-sample` and `--verify-seed` checked together with `--derive`; a UsageError says what is wrong. */
export function sampleSettings(options: {
  derive?: boolean;
  verifySample?: string;
  verifySeed?: number;
}): { sample: SampleSize; seed: number | undefined } | null {
  if (options.derive !== true) {
    if (options.verifySample !== undefined || options.verifySeed !== undefined) {
      throw new UsageError('--verify-sample and --verify-seed choose the sample of a derived crawl: add --derive.');
    }
    return null;
  }
  const sample = options.verifySample === undefined ? DEFAULT_SAMPLE : parseSampleSize(options.verifySample);
  if (sample === null) {
    throw new UsageError(
      `--verify-sample takes a share such as 5% or 0.05 (1 or 100% fetches everything) or a whole number of ` +
        `documents of each kind such as 20, not ${JSON.stringify(options.verifySample)}.`,
    );
  }
  if (options.verifySeed !== undefined && !Number.isSafeInteger(options.verifySeed)) {
    throw new UsageError(`--verify-seed takes a whole number, not ${options.verifySeed}.`);
  }
  return { sample, seed: options.verifySeed };
}
