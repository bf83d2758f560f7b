/**
 * The derive scenario: `crawl --derive` against a full crawl of the same source, first CPU-bound (no latency, at the
 * cpu scenario's size, `--runs` pairs alternating: wall time and CPU per document), then latency-bound at each size
 * of `--derive-records` (requests and wall time, the target being at most a fifth of the requests;
 * docs/performance.md has the targets).
 */
import { startSampleApiProcess } from './children.js';
import { cpuPerDocument, derivedCost, type CpuPerDocument, type CrawlCpu, type DerivedCost } from './cpu-figures.js';
import { median, type RunFigures } from './report.js';
import {
  crawlOnce,
  crawlRun,
  documentUrls,
  ratio,
  serverArgs,
  withoutCatalogueVariant,
  type BenchContext,
  type CrawlSummary,
  type CrawlVariant,
} from './scenarios.js';

/** The CPU-bound comparison: medians of alternating pairs. */
export interface DeriveCpuBound {
  records: number;
  documents: number;
  full: RunFigures;
  derived: RunFigures & { requests: number; derivedDocuments: number; mismatches: number };
  /** Median derived wall ÷ median full wall (target ≤ 0.6). */
  wallRatio: number;
  /** CPU per document stored, of each crawl, from its own --json. */
  fullCpu: CpuPerDocument | null;
  derivedCpu: CpuPerDocument | null;
  /** A derived document's CPU against a fetched one's (cpu-figures.ts). */
  cost: DerivedCost | null;
  /**
   * The same pair with `--catalogue none`, in every run after it: medians of each and their wall ratio; null with
   * --no-without-catalogue.
   */
  withoutCatalogue: { full: RunFigures; derived: RunFigures; wallRatio: number } | null;
}

export interface DeriveScenario {
  latencyMs: number;
  concurrency: number;
  cpuBound: DeriveCpuBound;
  sizes: Array<{
    records: number;
    documents: number;
    full: RunFigures & { requests: number };
    derived: RunFigures & { requests: number; derivedDocuments: number; mismatches: number; sample: string };
    /** Derived requests ÷ full requests (target ≤ 0.2). */
    requestRatio: number;
    /** Derived wall time ÷ full wall time. */
    wallRatio: number;
    /** The root, the list pages and one request per links-only relationship, ÷ the full crawl's requests. */
    floorRatio: number;
  }>;
}

/**
 * `crawl --derive` against a full crawl of the same source, at each size of `--derive-records` and `--latency` per
 * response: requests (the target: at most a fifth of the full crawl's, samples included) and wall time. The
 * floor is what a derived crawl cannot avoid: the root, the list pages and the links-only relationships (spec 2.4's
 * successor), whose linkage only their own documents hold.
 */
export async function deriveScenario(context: BenchContext): Promise<DeriveScenario> {
  const { deriveRecords, pageSize, concurrency, latencyMs } = context.options;
  const cpuBound = await deriveCpuBound(context);
  const sizes: DeriveScenario['sizes'] = [];
  for (const records of deriveRecords) {
    const api = await startSampleApiProcess(context.cli, serverArgs(records, pageSize, latencyMs), context.base);
    try {
      const urls = documentUrls(api.rootUrl, records, pageSize);
      const floor = urls.filter((url) => !/\/\d+\//.test(url) || url.includes('/relationships/successor')).length;
      context.log(`derive: ${urls.length} documents at ${latencyMs} ms each: full crawl`);
      const full = await crawlOnce(context, api, crawlRun(context, concurrency), concurrency);
      context.log(`derive: ${urls.length} documents at ${latencyMs} ms each: crawl --derive`);
      const derived = await crawlOnce(context, api, deriveVariant(context, concurrency), concurrency);
      const derive = derived.summary.derive;
      if (derive === undefined) throw new Error('crawl --derive printed no derive summary.');
      if (derived.summary.documents !== full.summary.documents) {
        throw new Error(
          `crawl --derive stored ${derived.summary.documents} documents, the full crawl ${full.summary.documents}.`,
        );
      }
      sizes.push({
        records,
        documents: urls.length,
        full: { ...full.figures, requests: full.summary.requests },
        derived: {
          ...derived.figures,
          requests: derived.summary.requests,
          derivedDocuments: derive.derived,
          mismatches: derive.mismatches,
          sample: derive.sample,
        },
        requestRatio: Number((derived.summary.requests / full.summary.requests).toFixed(4)),
        wallRatio: ratio(derived.figures, full.figures)!,
        floorRatio: Number((floor / full.summary.requests).toFixed(4)),
      });
    } finally {
      await api.stop();
    }
  }
  return { latencyMs, concurrency, cpuBound, sizes };
}

/** The derived crawl: the first of --workers, as the full crawl, and a fixed sample (the same in every run). */
function deriveVariant(context: BenchContext, concurrency: number): CrawlVariant {
  const run = crawlRun(context, concurrency);
  return {
    name: run.name.replace('crawl', 'crawl --derive'),
    extra: [...run.extra, '--derive', '--verify-seed', '1'],
  };
}

function pairOf(full: RunFigures, derived: RunFigures): { full: RunFigures; derived: RunFigures; wallRatio: number } {
  return { full, derived, wallRatio: ratio(derived, full)! };
}

/**
 * A full crawl and `crawl --derive` of the sample API at `--records` without latency, `--runs` pairs alternating:
 * where the crawl's own work sets the pace, what deriving a document instead of fetching it saves.
 */
async function deriveCpuBound(context: BenchContext): Promise<DeriveCpuBound> {
  const { records, pageSize, concurrency, runs } = context.options;
  const api = await startSampleApiProcess(context.cli, serverArgs(records, pageSize, 0), context.base);
  try {
    const documents = documentUrls(api.rootUrl, records, pageSize).length;
    const fulls: Array<{ figures: RunFigures; summary: CrawlSummary }> = [];
    const derivedRuns: Array<{ figures: RunFigures; summary: CrawlSummary }> = [];
    const bare = { fulls: [] as RunFigures[], derived: [] as RunFigures[] };
    const derivedChecked = async (variant: CrawlVariant) => {
      const derived = await crawlOnce(context, api, variant, concurrency);
      if (derived.summary.documents !== documents || derived.summary.derive === undefined) {
        throw new Error(
          `crawl --derive stored ${derived.summary.documents} documents of ${documents}` +
            (derived.summary.derive === undefined ? ' and printed no derive summary.' : '.'),
        );
      }
      return derived;
    };
    const log = (what: string, i: number) =>
      context.log(`derive: ${documents} documents, no latency: ${what}, run ${i} of ${runs}`);
    for (let i = 1; i <= runs; i += 1) {
      log('full crawl', i);
      fulls.push(await crawlOnce(context, api, crawlRun(context, concurrency), concurrency));
      log('crawl --derive', i);
      derivedRuns.push(await derivedChecked(deriveVariant(context, concurrency)));
      if (!context.options.withoutCatalogue) continue;
      log('full crawl --catalogue none', i);
      const full = withoutCatalogueVariant(crawlRun(context, concurrency));
      bare.fulls.push((await crawlOnce(context, api, full, concurrency)).figures);
      log('crawl --derive --catalogue none', i);
      bare.derived.push((await derivedChecked(withoutCatalogueVariant(deriveVariant(context, concurrency)))).figures);
    }
    const full = median(fulls.map((run) => run.figures));
    const derived = median(derivedRuns.map((run) => run.figures));
    // The request count and what was derived are the same in every run (a fixed sample): the median run's.
    const middle = derivedRuns.find((run) => run.figures.wallS === derived.wallS)!.summary;
    const cpus = (list: typeof fulls): Array<CrawlCpu | undefined> => list.map((run) => run.summary.cpu);
    return {
      records,
      documents,
      full,
      derived: {
        ...derived,
        requests: middle.requests,
        derivedDocuments: middle.derive!.derived,
        mismatches: middle.derive!.mismatches,
      },
      wallRatio: ratio(derived, full)!,
      fullCpu: cpuPerDocument(documents, cpus(fulls)),
      derivedCpu: cpuPerDocument(documents, cpus(derivedRuns)),
      cost: derivedCost(documents, middle.requests, cpus(fulls), cpus(derivedRuns)),
      withoutCatalogue: bare.fulls.length === 0 ? null : pairOf(median(bare.fulls), median(bare.derived)),
    };
  } finally {
    await api.stop();
  }
}
