/**
 * Pages that shift while they are crawled (docs/architecture.md#pages-that-shift). A collection whose pages disagree
 * with each other (a record on two pages and another on none, counts or page totals that differ from page to page)
 * was changing during the crawl, or the source lists it in no stable order (a Django queryset without ordering). All
 * of its pages are fetched again, at most PAGE_ROUNDS times, at once (a shuffle does not wait), until they agree.
 * Pages that say the same thing again are the source's own fault, mirrored as found, with their findings; a collection
 * whose pages say something else every time could not be had consistently: a `pagination.shifted` finding, and the
 * crawl fails unless --allow-partial.
 */
import { ShiftingCollectionError } from '../util/errors.js';
import type { Finding } from '../validate/finding.js';
import type { InvariantChecker, UnsettledCollection } from '../validate/invariants.js';
import { finding } from '../validate/rules.js';
import { byCodeUnits } from '../util/code-unit-order.js';

/** How many times a collection's pages are fetched again before it counts as shifting. */
const PAGE_ROUNDS = 3;

export interface SettleInput {
  invariants: InvariantChecker;
  /** Fetches these URLs again, and what new links they lead to, storing each document as the crawl does. */
  refetch(urls: string[]): Promise<void>;
  allowPartial: boolean;
  addFinding(finding: Finding): void;
}

/**
 * Settles every collection whose pages disagree. Returns the names of those that shifted every time (sorted), which
 * --allow-partial publishes as fetched: the manifest marks the snapshot partial and names them.
 */
export async function settleCollections(input: SettleInput): Promise<string[]> {
  let shifting = input.invariants.unsettledCollections();
  for (let round = 1; round <= PAGE_ROUNDS && shifting.size > 0; round++) {
    await input.refetch([...shifting.values()].flatMap((collection) => collection.pages));
    const now = input.invariants.unsettledCollections();
    const still = new Map<string, UnsettledCollection>();
    for (const [name, before] of shifting) {
      const after = now.get(name);
      // Settled, or the same answer again (the source's fault, not a shift): done with it.
      if (after !== undefined && after.fingerprint !== before.fingerprint) still.set(name, after);
    }
    shifting = still;
  }
  if (shifting.size === 0) return [];
  const fetched = PAGE_ROUNDS + 1;
  for (const [name, collection] of shifting) {
    input.addFinding(
      finding(
        collection.pages[0]!,
        '',
        'pagination.shifted',
        `The pages of ${name} disagreed each of the ${fetched} times they were fetched, the last time so: ` +
          `${collection.disagreement.message} The collection changes faster than it can be crawled, or the source ` +
          'lists it in no stable order; this snapshot may hold some of its records twice and miss others.',
      ),
    );
  }
  const names = [...shifting.keys()].sort(byCodeUnits);
  if (input.allowPartial) return names;
  const [first] = shifting.values();
  throw new ShiftingCollectionError(
    `The pages of ${names.join(', ')} disagreed each of the ${fetched} times they were fetched, so no consistent ` +
      `view of ${names.length === 1 ? 'it' : 'them'} could be had (${first!.disagreement.url}: ` +
      `${first!.disagreement.message}) and nothing was published. Crawl again when the source is not changing, ` +
      'have its list ordered (a Django queryset needs an order_by), or give --allow-partial to publish it as ' +
      'fetched, with the report naming the collection.',
  );
}
