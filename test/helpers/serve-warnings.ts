/** `cv-snapshot serve` in the test's process, with the warnings it gives (its log of what it could not answer). */
import { startServe, type ServeHandle } from '../../src/serve/index.js';

/** Starts serve on `dir`, runs `use` with it, closes it, and returns the process's warnings meanwhile. */
export async function serveWarnings(dir: string, use: (serve: ServeHandle) => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  let serve: ServeHandle | undefined;
  try {
    serve = await startServe({ dir, port: 0 });
    await use(serve);
    // A warning is delivered on a later tick than it is given.
    await new Promise(setImmediate);
  } finally {
    process.off('warning', onWarning);
    await serve?.close();
  }
  return warnings;
}
