/** `cv-snapshot serve` in the test's process, with the warnings it gives (its log of what it could not answer). */
import { startServe, type ServeHandle } from '../../src/serve/index.js';

/**
 * Starts serve on `dir`, runs `use` with it, closes it, and returns the lines it warned with meanwhile, and any
 * process warning (serve gives none: each would be a test failure to see).
 */
export async function serveWarnings(dir: string, use: (serve: ServeHandle) => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`process warning: ${warning.message}`);
  process.on('warning', onWarning);
  let serve: ServeHandle | undefined;
  try {
    serve = await startServe({ dir, port: 0, warn: (line) => warnings.push(line) });
    await use(serve);
    // A process warning is delivered on a later tick than it is given.
    await new Promise(setImmediate);
  } finally {
    process.off('warning', onWarning);
    await serve?.close();
  }
  return warnings;
}
