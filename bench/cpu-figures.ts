/**
 * The crawl's CPU figures, from what `cv-snapshot crawl --json` reports of its own run (`cpu`: the process's CPU time,
 * user + system, every thread, start-up included, and the CPU time of each phase; src/pipeline/phases.ts): per
 * document, by phase, the catalogue's share, and what a derived document costs against a fetched one. Each is a
 * median over the runs, taken figure by figure.
 */

export type PhaseName = 'crawl' | 'catalogue' | 'downloads' | 'finalize' | 'publish';

/** The `cpu` member of `crawl --json`. */
export interface CrawlCpu {
  ms: number;
  perDocumentUs: number;
  phases: Partial<Record<PhaseName, number>>;
}

export interface CpuPerDocument {
  documents: number;
  runs: number;
  /** The process's CPU µs per document (cpu.ms ÷ documents). */
  totalUs: number;
  /** The same in each run, in the order run: its spread says how far to trust the median. */
  totalUsByRun: number[];
  /** Fetching, checking and storing the documents (the crawl phase). */
  crawlUs: number | null;
  /** The catalogue's pages and its downloads (SKOS, CSV): both inside finalize. */
  catalogueUs: number | null;
  /** The rest of finalize: manifest, report, SHA256SUMS, _headers. */
  finalizeRestUs: number | null;
  /** Moving the finished snapshot into place. */
  publishUs: number | null;
  /** What no phase holds: start-up (loading the code, reading the options) and the moments between phases. */
  otherUs: number | null;
  /** The catalogue and its downloads ÷ the rest of the crawl's CPU (target ≤ 0.10); null without a catalogue. */
  catalogueShare: number | null;
  /** The same in each run. */
  catalogueShareByRun: number[];
}

/** The median of the numbers (the mean of the two middle ones for an even count); null for none. */
export function medianOf(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const round = (value: number | null, digits: number): number | null =>
  value === null ? null : Number(value.toFixed(digits));

/** The catalogue and its downloads, in ms, or null when the run built no catalogue. */
function catalogueMs(cpu: CrawlCpu): number | null {
  const { catalogue, downloads } = cpu.phases;
  return catalogue === undefined && downloads === undefined ? null : (catalogue ?? 0) + (downloads ?? 0);
}

/** Per-document figures of crawls of `documents` documents; null when no run reported its CPU. */
export function cpuPerDocument(documents: number, cpus: Array<CrawlCpu | undefined>): CpuPerDocument | null {
  const runs = cpus.filter((cpu): cpu is CrawlCpu => cpu !== undefined);
  if (runs.length === 0) return null;
  const perDocument = (ms: (cpu: CrawlCpu) => number | null): number | null => {
    const values = runs.map(ms).filter((value): value is number => value !== null);
    const middle = medianOf(values);
    return round(middle === null ? null : (middle * 1000) / Math.max(documents, 1), 1);
  };
  const phase = (name: PhaseName) => (cpu: CrawlCpu) => cpu.phases[name] ?? null;
  const shares = runs
    .map((cpu) => {
      const catalogue = catalogueMs(cpu);
      return catalogue === null ? null : catalogue / (cpu.ms - catalogue);
    })
    .filter((share): share is number => share !== null);
  return {
    documents,
    runs: runs.length,
    totalUs: perDocument((cpu) => cpu.ms)!,
    totalUsByRun: runs.map((cpu) => round((cpu.ms * 1000) / Math.max(documents, 1), 1)!),
    crawlUs: perDocument(phase('crawl')),
    catalogueUs: perDocument(catalogueMs),
    finalizeRestUs: perDocument((cpu) =>
      cpu.phases.finalize === undefined ? null : cpu.phases.finalize - (catalogueMs(cpu) ?? 0),
    ),
    publishUs: perDocument(phase('publish')),
    otherUs: perDocument((cpu) => {
      const { crawl, finalize, publish } = cpu.phases;
      return crawl === undefined ? null : cpu.ms - crawl - (finalize ?? 0) - (publish ?? 0);
    }),
    catalogueShare: round(medianOf(shares), 4),
    catalogueShareByRun: shares.map((share) => round(share, 4)!),
  };
}

/** Crawls with the catalogue against crawls with `--catalogue none`, alternating: medians of their CPU ms. */
export interface CatalogueDifference {
  runs: number;
  withMs: number;
  withoutMs: number;
  /** (with − without) ÷ without. */
  share: number;
}

export function catalogueDifference(
  withCatalogue: Array<CrawlCpu | undefined>,
  without: Array<CrawlCpu | undefined>,
): CatalogueDifference | null {
  const withMs = medianOf(withCatalogue.flatMap((cpu) => (cpu ? [cpu.ms] : [])));
  const withoutMs = medianOf(without.flatMap((cpu) => (cpu ? [cpu.ms] : [])));
  if (withMs === null || withoutMs === null || withoutMs <= 0) return null;
  return {
    runs: Math.min(withCatalogue.length, without.length),
    withMs: Math.round(withMs),
    withoutMs: Math.round(withoutMs),
    share: Number(((withMs - withoutMs) / withoutMs).toFixed(4)),
  };
}

/**
 * What a derived document costs against a fetched one, from the crawl phases' CPU (finalize is the same work in
 * both): a fetched document costs the full crawl's crawl phase ÷ its documents; a derived one, the derived crawl's
 * crawl phase less that cost for each request it made (the documents it fetched), spread over the documents it did
 * not fetch. An estimate: it assumes a document fetched costs the same in either crawl.
 */
export interface DerivedCost {
  fetchedUs: number;
  derivedUs: number;
  /** derivedUs ÷ fetchedUs. */
  ratio: number;
}

export function derivedCost(
  documents: number,
  requests: number,
  full: Array<CrawlCpu | undefined>,
  derived: Array<CrawlCpu | undefined>,
): DerivedCost | null {
  const crawlMs = (runs: Array<CrawlCpu | undefined>) => medianOf(runs.flatMap((cpu) => cpu?.phases.crawl ?? []));
  const fullMs = crawlMs(full);
  const derivedMs = crawlMs(derived);
  if (fullMs === null || derivedMs === null || documents <= requests) return null;
  const fetchedUs = (fullMs * 1000) / documents;
  const derivedUs = (derivedMs * 1000 - fetchedUs * requests) / (documents - requests);
  return {
    fetchedUs: Number(fetchedUs.toFixed(1)),
    derivedUs: Number(derivedUs.toFixed(1)),
    ratio: Number((derivedUs / fetchedUs).toFixed(3)),
  };
}

/**
 * The crawl's CPU split into what each document adds and what each run costs whatever its size (starting Node,
 * loading and compiling the code, the catalogue's fixed pages), from two crawls of different sizes in one run: a
 * document adds (CPU₂ − CPU₁) ÷ (documents₂ − documents₁), and a run costs CPU₁ less that for each of its documents.
 * The same for the catalogue and its downloads, and their share of the rest of the larger crawl.
 */
export interface CpuBySize {
  documents: [number, number];
  /** CPU µs a document adds to the crawl. */
  perDocumentUs: number;
  /** CPU ms of a run whatever its size. */
  perRunMs: number;
  /** Of those µs, what the catalogue and its downloads add; null without a catalogue. */
  cataloguePerDocumentUs: number | null;
  /** The catalogue and its downloads ÷ the rest of the larger crawl's CPU; null without a catalogue. */
  largerCatalogueShare: number | null;
}

export function cpuBySize(
  smaller: { documents: number; cpu: CrawlCpu | undefined },
  larger: { documents: number; cpu: CrawlCpu | undefined },
): CpuBySize | null {
  const added = larger.documents - smaller.documents;
  if (smaller.cpu === undefined || larger.cpu === undefined || added <= 0) return null;
  const perDocumentUs = ((larger.cpu.ms - smaller.cpu.ms) * 1000) / added;
  const [small, large] = [catalogueMs(smaller.cpu), catalogueMs(larger.cpu)];
  return {
    documents: [smaller.documents, larger.documents],
    perDocumentUs: Number(perDocumentUs.toFixed(1)),
    perRunMs: Math.round(smaller.cpu.ms - (perDocumentUs * smaller.documents) / 1000),
    cataloguePerDocumentUs:
      small === null || large === null ? null : Number((((large - small) * 1000) / added).toFixed(1)),
    largerCatalogueShare: large === null ? null : Number((large / (larger.cpu.ms - large)).toFixed(4)),
  };
}
