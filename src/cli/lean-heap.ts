/**
 * The V8 heap settings the `cv-snapshot` executable starts Node with (docs/architecture.md#performance: peak RSS ≤
 * 200 MB at 200,000 documents). A crawl allocates fast (every document is parsed, checked and serialised) while its
 * live data stays small (mostly the set of URLs seen), and by default V8 lets the old generation grow to several times
 * the live data between full collections: 358 MB of peak RSS at 200,020 documents. With the old generation growing
 * at most 20 % past the live data and the young generation at two 4 MB halves, the same crawl peaks at 188-193 MB.
 * The young generation's size is the CPU trade-off: with 1 MB halves (and 30 %, the earlier setting) the crawl peaked
 * at 193 MB too, but scavenged every 25 documents or so (a document allocates about 40 kB), each time copying about a
 * fifth of the young generation (the documents in flight), and collection took 15.5-15.9 % of 63.6-64.2 s of CPU,
 * against 9.2-9.7 % of 47.5-52.0 s now. Measured three runs each on a 2-core VM at `npm run
 * bench`'s memory-scenario size; see the README's performance section.
 *
 * They are given on the executable's first line (`#!/usr/bin/env -S node …`, src/cli.ts), so V8 reads them before it
 * starts, as Node supports; they used to be changed through `node:v8` after start-up, which Node documents as
 * undefined behaviour. `node dist/cli.js` does not read that line: give the flags to node yourself (npm start does).
 * A program that calls `createSnapshot` runs with its own process's settings.
 */
export const LEAN_HEAP_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=20'] as const;

/** The executable's first line, which carries the flags (checked against src/cli.ts by a test). */
export const SHEBANG = `#!/usr/bin/env -S node ${LEAN_HEAP_FLAGS.join(' ')}`;
