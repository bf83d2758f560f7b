/**
 * Finalize (docs/architecture.md#the-pipeline): once every document is written, build what depends on all of them — the
 * complete collections, the host files, the validation report, the manifest and SHA256SUMS — in the staged tree.
 */
import type { Clock } from '../util/clock.js';
import type { DeriveManifest } from '../format/derive-manifest.js';
import type { InvariantChecker } from '../validate/invariants.js';
import { reportJson, type ValidationReport } from '../validate/report.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { writeCollectionIndex } from '../format/collection-index.js';
import { writeHostFiles } from '../format/host-files.js';
import type { CatalogueMode, Layout } from '../format/layout.js';
import { aboutSnapshot, buildCatalogue, type BuiltCatalogue } from '../catalogue/build-catalogue.js';
import {
  MANIFEST_FORMAT_VERSION,
  MANIFEST_PATH,
  REPORT_PATH,
  serializeManifest,
  type CollectionIndexMode,
  type Manifest,
} from '../format/manifest.js';
import { formatSums, SUMS_PATH } from '../store/sums.js';
import { StoredLinks, type LinkMode } from '../format/rewrite-links.js';
import { SnapshotReader } from '../format/stored-records.js';
import { PhaseTimes, processCpuMs } from './phases.js';
import type { RunState } from './run-state.js';
import type { TreeWriter } from '../store/writer.js';
import { byCodeUnits } from '../util/code-unit-order.js';
import { changesMember, changesSince } from './changes-since.js';
import type { CatalogueChanges } from '../catalogue/changes-page.js';
import type { ChangesSincePrevious } from './snapshot-options.js';
import { CvSnapshotError } from '../util/errors.js';

export interface FinalizeInput {
  layout: Layout;
  writer: TreeWriter;
  state: RunState;
  invariants: InvariantChecker;
  clock: Clock;
  options: Manifest['options'] & { links: LinkMode; collectionIndex: CollectionIndexMode; catalogue: CatalogueMode };
  /** The snapshot --out held when the run started, for the catalogue's Changes page; null when it held none. */
  previous: string | null;
  /** Stops the comparison with `previous` (a read of both snapshots) when the run is asked to stop. */
  signal?: AbortSignal;
  /** With `crawl --derive`: the manifest's `derive` member and the mismatches for the report. */
  derive?: { manifest: DeriveManifest; mismatches: NonNullable<ValidationReport['derive']>['mismatches'] };
  /** Where the catalogue's and the downloads' CPU time is added up. */
  phases?: PhaseTimes;
  /** Told each stage as it starts, for the progress of a long run (StageLine). */
  stage?: (text: string) => void;
}

function byName<T>(entries: Iterable<[string, T]>): Array<[string, T]> {
  return [...entries].sort(([a], [b]) => byCodeUnits(a, b));
}

/** The catalogue failed on something in the snapshot: a fault of cv-snapshot's, with a way to publish without it. */
class CatalogueBuildError extends CvSnapshotError {}

/**
 * Builds the catalogue (its pages, its downloads). A failure that is not the file system's is a fault of the
 * catalogue's code, not of the source or the machine: it says so, and how to publish the snapshot (every document is
 * in staging) without it.
 */
async function buildCatalogueOrExplain(input: Parameters<typeof buildCatalogue>[0]): Promise<BuiltCatalogue | null> {
  try {
    return await buildCatalogue(input);
  } catch (error) {
    if (error instanceof CvSnapshotError || typeof (error as NodeJS.ErrnoException).syscall === 'string') throw error;
    throw new CatalogueBuildError(
      `The catalogue (the pages for people) could not be built (${String(error)}); this is a fault of ` +
        "cv-snapshot's, please report it. Every document is fetched: run the same command with --resume and " +
        '--catalogue none to publish the snapshot without the catalogue.',
      { cause: error },
    );
  }
}

export async function finalizeSnapshot(input: FinalizeInput): Promise<{
  manifest: Manifest;
  report: ValidationReport;
  unusedNames: string[];
  changes: ChangesSincePrevious | null;
}> {
  const { layout, writer, state, options } = input;
  const stage = input.stage ?? (() => undefined);
  stage(`finalize: the complete collections and the validation report of ${state.documents} documents…`);
  const links = new StoredLinks(layout, options.links, options.baseUrl);
  for (const [collection, pages] of byName(state.pageFiles)) {
    const index = layout.collectionIndex(collection);
    writeCollectionIndex(writer, {
      pageFiles: [...pages].sort(([a], [b]) => a - b).map(([, file]) => file),
      file: index.file,
      selfLink: links.prefix === null ? layout.collectionUrl(collection) : links.prefix + index.servedPath.slice(1),
      mode: options.collectionIndex,
    });
  }
  writeHostFiles(writer, layout);

  for (const finding of input.invariants.finish()) state.addFinding(finding);
  const report = state.report(input.invariants.undescribedTypes());
  if (input.derive) report.derive = { mismatches: input.derive.mismatches };
  writer.writeParts(REPORT_PATH, reportJson(report));
  const createdAt = input.clock.recordedTime.toISOString();
  const manifest: Manifest = {
    format: 'cv-snapshot',
    formatVersion: MANIFEST_FORMAT_VERSION,
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    source: { root: layout.root, etag: state.source.etag, lastModified: state.source.lastModified },
    createdAt,
    options,
    partial: state.missing().length > 0 || state.shifted.length > 0,
    missing: state.missing(),
    // Only when a collection shifted: a snapshot without one keeps the bytes it always had.
    ...(state.shifted.length > 0 ? { shifted: state.shifted } : {}),
    documents: state.documents,
    collections: Object.fromEntries(byName(state.collections)),
    validation: { errors: report.errors, warnings: report.warnings },
    ...(input.derive ? { derive: input.derive.manifest } : {}),
  };
  const phases = input.phases ?? new PhaseTimes();
  let unusedNames: string[] = [];
  let compared: ChangesSincePrevious | null = null;
  // A catalogue needs room below the host's root (buildCatalogue); with one come its downloads and Changes page.
  if (options.catalogue === 'html' && layout.hasCatalogueRoom()) {
    const started = processCpuMs();
    const startedAt = performance.now();
    // The downloads' work is interleaved with the pages', a list page at a time. Its share is timed by the clock
    // and the catalogue's CPU split in that proportion: reading the process's CPU time is a system call, slow while
    // V8's compiler threads run, and timing each list page by it cost several percent of the catalogue
    // (docs/performance.md#what-it-measures). The clock also counts the Changes comparison's waits, so the
    // downloads' share is an estimate; the sum of the two is exact.
    let downloadsWall = 0;
    const timeDownloads = <T>(work: () => T): T => {
      const start = performance.now();
      try {
        return work();
      } finally {
        downloadsWall += performance.now() - start;
      }
    };
    const built = await buildCatalogueOrExplain({
      changes: changesSince(input.previous, { dir: writer.dir, manifest }, input.signal),
      layout,
      writer,
      reader: new SnapshotReader(writer.dir, writer.dir, manifest, state.leadingNowhere),
      about: aboutSnapshot(manifest),
      ...(options.names ? { names: options.names } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
      timeDownloads,
      stage: (text) => stage(`finalize: ${text}`),
    });
    unusedNames = built?.unusedNames ?? [];
    if (built !== null) {
      manifest.changes = changesMember(built.changes);
      compared = resultOf(built.changes);
    }
    const cpuMs = processCpuMs() - started;
    const downloadsMs = cpuMs * Math.min(1, downloadsWall / Math.max(performance.now() - startedAt, 1e-3));
    phases.add('catalogue', cpuMs - downloadsMs);
    phases.add('downloads', downloadsMs);
  }
  writer.write(MANIFEST_PATH, serializeManifest(manifest));
  stage('finalize: SHA256SUMS…');
  writer.writeParts(SUMS_PATH, formatSums(writer.listing()));
  return { manifest, report, unusedNames, changes: compared };
}

/** The totals of the Changes page's comparison, for the run's result (the crawl's summary says what changed). */
function resultOf(changes: CatalogueChanges): ChangesSincePrevious | null {
  if (changes.against === null) return changes.why === 'first' ? null : { against: null, why: changes.why };
  return { against: changes.against, identical: changes.diff.identical, summary: changes.diff.summary };
}
