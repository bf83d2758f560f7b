#!/usr/bin/env node
/** The `cv-snapshot` executable: signals become an abort, and `main` does the rest (cli/main.ts). */
import { ExitCode } from './errors.js';
import { main } from './cli/main.js';

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second signal means "now".
    if (controller.signal.aborted) process.exit(signal === 'SIGINT' ? ExitCode.sigint : ExitCode.sigterm);
    controller.abort(signal);
  });
}
process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
});
