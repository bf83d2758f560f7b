/**
 * The settings the `cv-snapshot` executable starts Node with, on its first line (`#!/usr/bin/env -S …`, src/cli.ts),
 * so that V8 reads them before it starts: a young generation in which the documents in flight die, an old generation
 * held to 40 % past the live data, and one malloc arena. They keep a crawl of 200,000 documents under 200 MB of peak
 * RSS; what each buys is measured in docs/performance.md#memory.
 */
export const LEAN_HEAP_ENV = ['MALLOC_ARENA_MAX=1'] as const;
export const LEAN_HEAP_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=40'] as const;

/** The executable's first line, which carries them (checked against src/cli.ts by a test). */
export const SHEBANG = `#!/usr/bin/env -S ${LEAN_HEAP_ENV.join(' ')} node ${LEAN_HEAP_FLAGS.join(' ')}`;
