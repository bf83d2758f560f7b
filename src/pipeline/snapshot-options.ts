/** What a library caller gives `createSnapshot` and gets back, and the defaults the command line shows. */
import type { CatalogueNames } from '../format/human-names.js';
import type { PhaseName } from './phases.js';
import type { Clock } from '../util/clock.js';
import type { DeriveManifest } from '../format/derive-manifest.js';
import { DEFAULT_SAMPLE, formatSampleSize } from '../derive/sample.js';
import type { ProgressMode } from '../crawl/progress.js';
import type { CollectionCounts, CollectionIndexMode } from '../format/manifest.js';
import type { CatalogueMode } from '../format/layout.js';
import type { LinkMode } from '../format/rewrite-links.js';
import type { ValidationReport } from '../validate/report.js';
import type { SnapshotDiff } from '../diff/diff-format.js';

export interface SnapshotOptions {
  /** The API root, such as https://sms-cv.helmholtz.cloud/sms/cv/api/v1/. */
  rootUrl: string;
  /** Directory to publish into; replaced only when the new snapshot is complete. */
  out: string;
  /** Requests in flight at once (default `DEFAULTS.concurrency`). */
  concurrency?: number;
  /**
   * Worker threads that fetch, read, validate and write documents while the main thread keeps the journal (default
   * 0 here: a library call starts no threads unasked; the command line defaults to `defaultWorkers()`: the cores
   * beyond two, at most 6, and none below four cores). The snapshot is the same with any number. Derive mode uses
   * none.
   */
  workers?: number;
  /** Retries per URL after the first attempt (default `DEFAULTS.retries`). */
  retries?: number;
  /** Milliseconds allowed for response headers, and between body chunks (default `DEFAULTS.timeoutMs`). */
  timeoutMs?: number;
  /** Largest response accepted, in bytes after decompression (default `DEFAULTS.maxBytes`). */
  maxBytes?: number;
  /** Requests per second, retries included (default: no limit). */
  rate?: number;
  /** How links are written (default `DEFAULTS.links`); `absolute` needs `baseUrl`. */
  links?: LinkMode;
  /** The address the mirror will have, with `links: 'absolute'`. */
  baseUrl?: string;
  /** What the bare collection URL holds (default `DEFAULTS.collectionIndex`). */
  collectionIndex?: CollectionIndexMode;
  /** The pages for people, `html` (default `DEFAULTS.catalogue`) or `none` (docs/catalogue.md). */
  catalogue?: CatalogueMode;
  /**
   * Names for people of collections and fields, in place of those the catalogue derives (`--names`,
   * docs/catalogue.md#names-for-people); recorded in the manifest.
   */
  names?: CatalogueNames;
  /**
   * Record every HTTP exchange as the source sent it, in WARC files in the snapshot's `_cv-snapshot/` folder
   * (docs/capture.md).
   */
  warc?: boolean;
  /** Extra request headers as `Name: value` (credentials); values never reach the snapshot or logs. */
  headers?: string[];
  /** Publish nothing when validation finds an error. */
  strict?: boolean;
  /** Discard a staging directory left by an earlier run. */
  fresh?: boolean;
  /** Continue the crawl that a staging directory holds. */
  resume?: boolean;
  /** Stop with an error past this many URLs (default `DEFAULTS.maxDocuments`). */
  maxDocuments?: number;
  /** Publish even when documents cannot be fetched; the manifest marks the snapshot partial and lists them. */
  allowPartial?: boolean;
  signal?: AbortSignal;
  clock?: Clock;
  /** Where the progress line goes, and how. */
  progress?: { stream: NodeJS.WritableStream; mode: ProgressMode; intervalMs?: number };
  /** Backoff base for retries (tests shorten it). */
  backoffBaseMs?: number;
  /**
   * Fetch the root, the lists and what they cannot explain; derive the rest, checked against a fetched sample
   * (docs/derive.md).
   */
  derive?: boolean;
  /**
   * With `derive`: the share (`2%`, `0.02`) or number (`20`) of each kind of document fetched to check the
   * derivation, beyond one of each kind (default `DEFAULTS.verifySample`); `1` or `100%` fetches everything.
   */
  verifySample?: string;
  /** With `derive`: the seed of the sample (default: a random one; the manifest records it). */
  verifySeed?: number;
}

export interface SnapshotResult {
  out: string;
  root: string;
  documents: number;
  collections: Record<string, CollectionCounts>;
  report: ValidationReport;
  summary: string;
  /** Documents taken from the staging directory of an interrupted run (with --resume). */
  resumed: number;
  /** Documents that could not be fetched (with --allow-partial); the snapshot is partial when any. */
  missing: string[];
  /**
   * Collections whose pages disagreed every time they were fetched (with --allow-partial), sorted; the snapshot is
   * partial when any.
   */
  shifted: string[];
  requests: number;
  retries: number;
  elapsedMs: number;
  /**
   * CPU time (user + system, all threads) of the process when the run ended, start-up included, and of each phase
   * (phases.ts): what `--json` and the bench show per document.
   */
  cpu: { totalMs: number; phases: Partial<Record<PhaseName, number>> };
  /** The names of `names` that no collection or field of the snapshot took: a misspelt API name, most likely. */
  unusedNames: string[];
  /**
   * A sentence for each older generation publishing kept, not deleted, because a file in it was edited since the
   * tool wrote it: which file, and how to remove the generation.
   */
  kept: string[];
  /** With `derive`: documents derived rather than fetched, and the manifest's account of them. */
  derive?: DeriveManifest;
  /**
   * What changed since the snapshot --out held, as the catalogue's Changes page compared them: null when nothing was
   * compared because there was nothing to compare (a first crawl into --out, or `catalogue: 'none'`).
   */
  changes: ChangesSincePrevious | null;
}

/** The Changes page's comparison, as a run's result gives it: the totals of the diff, or why there is none. */
export type ChangesSincePrevious =
  | { against: { root: string; createdAt: string }; identical: boolean; summary: SnapshotDiff['summary'] }
  /** --out held something that cannot be read as a snapshot, so nothing was compared. */
  | { against: null; why: 'unreadable' };

type Defaulted =
  | 'concurrency'
  | 'retries'
  | 'timeoutMs'
  | 'maxBytes'
  | 'maxDocuments'
  | 'links'
  | 'collectionIndex'
  | 'catalogue'
  | 'verifySample';

/** The defaults of the options that have one: the command line shows and applies these same values. */
export const DEFAULTS: Readonly<Required<Pick<SnapshotOptions, Defaulted>>> = {
  concurrency: 8,
  retries: 5,
  timeoutMs: 30_000,
  maxBytes: 64 * 1024 * 1024,
  maxDocuments: 2_000_000,
  links: 'relative',
  collectionIndex: 'complete',
  catalogue: 'html',
  verifySample: formatSampleSize(DEFAULT_SAMPLE),
};
