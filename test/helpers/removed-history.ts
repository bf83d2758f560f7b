/**
 * Removed records that share an id, from a real crawl: the suite's source (tiny-source.ts) in four releases, crawled
 * one after another into one --out, a day apart. In `units` and in `things` the record at id 7 changes type (a
 * removal and an addition) and is then removed too, so two removed records share each address, in two collections
 * that share the id; in `licenses` a record is removed, comes back and is removed again.
 */
import { createClock } from '../../src/util/clock.js';
import { crawlForTest } from './crawl.js';
import { startTinySource, type TinyRecord } from './tiny-source.js';

type Vocabulary = Record<string, TinyRecord[]>;

const kept = (collection: string): TinyRecord => ({ id: '1', term: `kept in ${collection}` });
const record = (id: string, type: string, term: string): TinyRecord => ({
  id,
  type,
  term,
  attributes: { definition: `${term}, as the source defined it.` },
});

/** The source's collections in each release. */
export const RELEASES: readonly Vocabulary[] = [
  {
    units: [kept('units'), record('7', 'Unit', 'metre')],
    things: [kept('things'), record('7', 'Thing', 'kelvin')],
    licenses: [kept('licenses'), record('5', 'License', 'CC0')],
  },
  {
    units: [kept('units'), record('7', 'Thing', 'metre (reissued)')],
    things: [kept('things'), record('7', 'Unit', 'kelvin (reissued)')],
    licenses: [kept('licenses')],
  },
  {
    units: [kept('units')],
    things: [kept('things')],
    licenses: [kept('licenses'), record('5', 'License', 'CC0 1.0')],
  },
  { units: [kept('units')], things: [kept('things')], licenses: [kept('licenses')] },
];

/** The `createdAt` of the snapshot of release `n`. */
export function releaseTime(n: number): string {
  return new Date((1_700_000_000 + n * 86_400) * 1000).toISOString();
}

/**
 * Crawls releases 0 to `last` of the source into `out`, each at its `releaseTime`; `after` runs after each crawl
 * with its release number.
 */
export async function crawlReleases(
  out: string,
  last = RELEASES.length - 1,
  after: (n: number) => Promise<void> = async () => {},
): Promise<void> {
  const collections: Vocabulary = { ...RELEASES[0]! };
  const source = await startTinySource({ collections });
  try {
    for (let n = 0; n <= last; n++) {
      Object.assign(collections, RELEASES[n]);
      const clock = createClock({ SOURCE_DATE_EPOCH: String(Date.parse(releaseTime(n)) / 1000) });
      await crawlForTest(source.root, out, { clock });
      await after(n);
    }
  } finally {
    await source.close();
  }
}
