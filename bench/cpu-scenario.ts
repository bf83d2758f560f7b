/**
 * The cpu scenario (and the disk scenario, the same writing to a disk): the crawl where its own work sets the pace,
 * no latency. Its figures come from the crawl's own `--json` (cpu-figures.ts): CPU per document, by phase, and
 * the catalogue's share, medians of `--runs`; curl (handed the URL list) and the bare Node loop run beside it,
 * alternating, as anchors: what fetching and writing alone cost. Then, on tmpfs only, one crawl under
 * `node --cpu-prof` whose profile says where a document's CPU goes (cpu-profile.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startSampleApiProcess, type SampleApiProcess } from './children.js';
import {
  catalogueDifference,
  cpuPerDocument,
  medianOf,
  type CatalogueDifference,
  type CpuPerDocument,
  type CrawlCpu,
} from './cpu-figures.js';
import { summariseProfiles, type ProfileSummary } from './cpu-profile.js';
import { median, type RunFigures } from './report.js';
import {
  crawlOnce,
  crawlRun,
  curlOnce,
  documentUrls,
  freshDir,
  nodeLoopOnce,
  ratio,
  sequentialOnce,
  serverArgs,
  withoutCatalogueVariant,
  type BenchContext,
  type CrawlVariant,
} from './scenarios.js';

export interface CpuScenario {
  records: number;
  pageSize: number;
  concurrency: number;
  documents: number;
  runs: RunFigures[];
  /** Each crawl's CPU per document and by phase (one per worker count), from its --json. */
  perDocument: Array<CpuPerDocument & { name: string }>;
  /** CPU µs per document of curl (GNU time) and of the bare Node loop: what fetching and writing alone cost. */
  curlCpuPerDocumentUs: number | null;
  nodeLoopCpuPerDocumentUs: number | null;
  /** Crawls with `--catalogue none` alternating with the others: the catalogue's cost by difference. */
  withoutCatalogue: CatalogueDifference | null;
  /** The first crawl's CPU per document by thread, with and without the catalogue; null where /proc is not. */
  threads: { withCatalogue: ThreadSplit | null; withoutCatalogue: ThreadSplit | null };
  /** The profiled crawl's top functions; null when not run. */
  profile: (ProfileSummary & { keptIn: string | null }) | null;
  /** The fastest crawl's wall time ÷ curl's (an anchor, not a target); null without curl. */
  crawlToCurl: number | null;
  /** The bare Node loop's wall time ÷ curl's: what being a Node client costs; null without one of them. */
  nodeLoopToCurl: number | null;
  /** The fastest crawl's wall time ÷ the bare Node loop's: what the crawl's own work costs; null without the loop. */
  crawlToNodeLoop: number | null;
  /** Garbage collection as a share of the fastest crawl's CPU, in percent (target ≤ 8). */
  crawlGcPercent: number | null;
  /** Sample API process over the whole scenario. */
  server: { cpuS: number | null; peakRssMb: number | null };
}

/**
 * A crawl's CPU µs per document (medians over runs, process CPU at exit) on its main thread and on its other
 * threads: V8's optimising compiler and the collector's helpers, and libuv's (Node's own pool; the crawl's worker
 * threads, with --workers, are counted there too).
 */
export interface ThreadSplit {
  mainUs: number;
  helpersUs: number;
}

function threadSplit(runs: RunFigures[]): ThreadSplit | null {
  const main = medianPerDocumentUs(runs, (run) => run.mainThreadS ?? null);
  const helpers = medianPerDocumentUs(runs, (run) =>
    run.cpuS === null || run.mainThreadS == null ? null : run.cpuS - run.mainThreadS,
  );
  return main === null || helpers === null ? null : { mainUs: main, helpersUs: helpers };
}

/** The median over `runs` of `seconds` (CPU time; null where not measured) per document, in whole µs. */
function medianPerDocumentUs(runs: RunFigures[], seconds: (run: RunFigures) => number | null): number | null {
  const us = runs.flatMap((run) => {
    const s = seconds(run);
    return s === null ? [] : [(s * 1e6) / Math.max(run.documents, 1)];
  });
  const middle = medianOf(us);
  return middle === null ? null : Math.round(middle);
}

/** The median CPU µs per document of runs measured from outside (getrusage, GNU time). */
function outsideCpuPerDocument(runs: RunFigures[]): number | null {
  return medianPerDocumentUs(runs, (run) => run.cpuS);
}

/** One crawl under `node --cpu-prof`, its profiles summarised; kept under --profile-dir when given. */
async function profiledCrawl(
  context: BenchContext,
  api: SampleApiProcess,
  variant: CrawlVariant,
): Promise<CpuScenario['profile']> {
  const { profileDir, profileTop, concurrency } = context.options;
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
  const dir = profileDir === undefined ? freshDir(context, 'profile') : mkdtempSync(path.join(profileDir, 'crawl-'));
  try {
    context.log(`cpu: ${variant.name} under node --cpu-prof, writing to ${dir}`);
    const crawl = await crawlOnce(
      context,
      api,
      { ...variant, nodeFlags: ['--cpu-prof', '--cpu-prof-dir', dir] },
      concurrency,
    );
    return {
      ...summariseProfiles(dir, crawl.summary.documents, profileTop),
      keptIn: profileDir === undefined ? null : dir,
    };
  } finally {
    if (profileDir === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The scenario. `extras` adds the crawls with `--catalogue none` and the profiled crawl (when the options ask for
 * them): the cpu scenario has them, the disk scenario measures the same crawl on another file system without.
 */
export async function cpuScenario(context: BenchContext, extras = true): Promise<CpuScenario> {
  const { records, pageSize, concurrency, runs } = context.options;
  const api = await startSampleApiProcess(context.cli, serverArgs(records, pageSize, 0), context.base);
  try {
    const urls = documentUrls(api.rootUrl, records, pageSize);
    const log = (message: string) => context.log(`${extras ? 'cpu' : 'disk'}: ${message}`);
    log(`${urls.length} documents, sample API at ${api.rootUrl}`);
    // One crawl per worker count asked for (or the crawl's default), each in every run.
    const variants = (context.options.workers ?? [undefined]).map((workers) => crawlRun(context, concurrency, workers));
    const bare: CrawlVariant | null =
      extras && context.options.withoutCatalogue ? withoutCatalogueVariant(variants[0]!) : null;
    const crawls: RunFigures[][] = variants.map(() => []);
    const cpus: Array<Array<CrawlCpu | undefined>> = variants.map(() => []);
    const bares: RunFigures[] = [];
    const bareCpus: Array<CrawlCpu | undefined> = [];
    const curls: RunFigures[] = [];
    const loops: RunFigures[] = [];
    const crawlChecked = async (variant: CrawlVariant, into: RunFigures[], cpuInto: Array<CrawlCpu | undefined>) => {
      const crawl = await crawlOnce(context, api, variant, concurrency);
      if (crawl.summary.documents !== urls.length) {
        throw new Error(`the crawl found ${crawl.summary.documents} documents; the sample API serves ${urls.length}.`);
      }
      into.push(crawl.figures);
      cpuInto.push(crawl.summary.cpu);
    };
    for (let i = 1; i <= runs; i += 1) {
      // Alternated, so that none profits from a warmer server or a quieter machine.
      for (const [v, variant] of variants.entries()) {
        log(`${variant.name}, run ${i} of ${runs}`);
        await crawlChecked(variant, crawls[v]!, cpus[v]!);
      }
      if (bare !== null) {
        log(`${bare.name}, run ${i} of ${runs}`);
        await crawlChecked(bare, bares, bareCpus);
      }
      if (context.curl) {
        log(`curl --parallel, run ${i} of ${runs}`);
        curls.push(await curlOnce(context, api, urls, concurrency));
      }
      if (context.options.nodeLoop) {
        log(`bare Node loop, run ${i} of ${runs}`);
        loops.push(await nodeLoopOnce(context, api, urls, concurrency));
      }
    }
    const crawlRows = crawls.map((figures) => median(figures));
    const curl = curls.length > 0 ? median(curls) : undefined;
    const loop = loops.length > 0 ? median(loops) : undefined;
    const rows = [...crawlRows, ...(bares.length > 0 ? [median(bares)] : []), ...(curl ? [curl] : [])];
    if (loop) rows.push(loop);
    if (context.options.sequential) {
      log('sequential fetch loop');
      rows.push(await sequentialOnce(context, api, urls));
    }
    const profile = extras && context.options.profile ? await profiledCrawl(context, api, variants[0]!) : null;
    // With several worker counts, the ratios are the fastest one's.
    const crawl = crawlRows.reduce((best, row) => (row.wallS < best.wallS ? row : best));
    const server = await api.stop();
    return {
      records,
      pageSize,
      concurrency,
      documents: urls.length,
      runs: rows,
      perDocument: variants.flatMap((variant, v) => {
        const figures = cpuPerDocument(urls.length, cpus[v]!);
        return figures === null ? [] : [{ ...figures, name: variant.name }];
      }),
      curlCpuPerDocumentUs: outsideCpuPerDocument(curls),
      nodeLoopCpuPerDocumentUs: outsideCpuPerDocument(loops),
      withoutCatalogue: bare === null ? null : catalogueDifference(cpus[0]!, bareCpus),
      threads: { withCatalogue: threadSplit(crawls[0]!), withoutCatalogue: threadSplit(bares) },
      profile,
      crawlToCurl: ratio(crawl, curl),
      nodeLoopToCurl: ratio(loop, curl),
      crawlToNodeLoop: ratio(crawl, loop),
      crawlGcPercent: crawl.gcPercent,
      server: {
        cpuS:
          server.userMs === null || server.sysMs === null
            ? null
            : Number(((server.userMs + server.sysMs) / 1000).toFixed(2)),
        peakRssMb: server.maxRssKb === null ? null : Number((server.maxRssKb / 1024).toFixed(1)),
      },
    };
  } finally {
    await api.stop();
  }
}
