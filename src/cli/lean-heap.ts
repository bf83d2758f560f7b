/**
 * The V8 heap settings the `cv-snapshot` executable starts Node with (docs/architecture.md#performance: peak RSS ≤
 * 200 MB at 200,000 documents). A crawl allocates fast (every document is parsed, checked and serialised) while its
 * live data stays small (mostly the set of URLs seen), and by default V8 lets the old generation grow to several times
 * the live data between full collections: 358 MB of peak RSS at 200,020 documents. With the old generation growing
 * at most 30 % past the live data and the young generation kept at two 1 MB halves, the same crawl peaks at 182 MB,
 * for 6 % more CPU time (60.7 s against 57.3 s; garbage collection 11.8 % of it against 9 %). Measured one run each
 * with `npm run bench`'s memory scenario size on a 2-core VM; see the README's performance section.
 *
 * They are given on the executable's first line (`#!/usr/bin/env -S node …`, src/cli.ts), so V8 reads them before it
 * starts, as Node supports; they used to be changed through `node:v8` after start-up, which Node documents as
 * undefined behaviour. `node dist/cli.js` does not read that line: give the flags to node yourself (npm start does).
 * A program that calls `createSnapshot` runs with its own process's settings.
 */
export const LEAN_HEAP_FLAGS = ['--max-semi-space-size=1', '--heap-growing-percent=30'] as const;

/** The executable's first line, which carries the flags (checked against src/cli.ts by a test). */
export const SHEBANG = `#!/usr/bin/env -S node ${LEAN_HEAP_FLAGS.join(' ')}`;
