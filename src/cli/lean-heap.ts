/**
 * V8 heap settings for a crawl (docs/architecture.md#performance: peak RSS ≤ 200 MB at 200,000 documents, flat in the
 * snapshot's size). By default V8 lets the old generation grow to several times the live data between full collections,
 * and the young generation to two 16 MB halves. A crawl allocates fast (every document is parsed, checked and
 * serialised) while its live data stays small (mostly the set of URLs seen), so most of that memory is garbage waiting
 * to be collected: about 345 MB of RSS for 60 MB of live data at 202,951 documents. With these settings the old
 * generation grows by at most 30 % past the live data, and the young generation stays at its starting size (two 1 MB
 * halves): 180–190 MB, for 10–40 % more CPU time (more, shorter collections). Measured by `npm run bench`; see the
 * README's performance section.
 *
 * Set by the executable only (a library caller owns its process's flags), for `crawl` and `demo`, before the
 * commands' modules load. Both flags are read by V8 at each collection, so they take effect when set at run time.
 */
import v8 from 'node:v8';

export function useLeanHeap(): void {
  v8.setFlagsFromString('--heap-growing-percent=30');
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}
