/**
 * The settings the `cv-snapshot` executable starts Node with (docs/architecture.md#performance: peak RSS ≤ 200 MB at
 * 200,000 documents, garbage collection ≤ 8 % of the crawl's CPU). They are given on the executable's first line
 * (`#!/usr/bin/env -S …`, src/cli.ts), so they take effect before Node starts, as Node supports; nothing is changed
 * through `node:v8` after start-up, which Node documents as undefined behaviour.
 *
 * - `--heap-growing-percent=40`: by default V8 lets the old generation grow to several times the live data between
 *   full collections (358 MB of peak RSS at 200,020 documents, measured with an earlier version). A crawl's live
 *   data is small (about 25 MB at the end of a 200,020-document crawl: the set of URLs seen is outside the heap)
 *   while it allocates fast, so the old generation is held to 40 % past it.
 * - `--max-semi-space-size=8`: the young generation at two halves of at most 8 MB, so that the documents in flight
 *   die there: with 4 MB halves a collection came every 25-100 documents and moved them to the old generation, and
 *   full collections became several times as frequent. 16 MB halves cost no less CPU than 8 MB ones but their fuller
 *   young generation stayed resident. At 202,951 documents, two alternating pairs: peak RSS 169 and 169 MB with 8 MB
 *   halves against 201 and 198 MB with 16, CPU 37.0 and 34.7 s against 38.7 and 35.5 s; twice as many young
 *   collections, whose pauses took 3.6-4.1 s against 3.1-3.2 s. The derived crawl peaked at 177 MB against 214 MB,
 *   verify at 115-117 MB against 131-134 MB; at 20,296 documents the CPU per document was 238-264 µs with either.
 * - `MALLOC_ARENA_MAX=1`: one malloc arena for all of Node's threads. With one per thread, freed memory stayed in
 *   the arenas of V8's helper threads: about 20 MB of resident memory that the crawl did not use.
 *
 * Three crawls of 200,020 documents (tmpfs, with the catalogue, 16 MB halves): peak RSS 176-191 MB, CPU 35.5-37.0 s,
 * GC 5.6-6.1 %; with 4 MB halves and 20 %, the earlier settings, and the code of the time: 231 MB, 76 s, 9.9 %.
 * `node dist/cli.js` does not read the first line: give the flags yourself (npm start does). A program that calls
 * `createSnapshot` runs with its own process's settings.
 */
export const LEAN_HEAP_ENV = ['MALLOC_ARENA_MAX=1'] as const;
export const LEAN_HEAP_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=40'] as const;

/** The executable's first line, which carries them (checked against src/cli.ts by a test). */
export const SHEBANG = `#!/usr/bin/env -S ${LEAN_HEAP_ENV.join(' ')} node ${LEAN_HEAP_FLAGS.join(' ')}`;
