#!/usr/bin/env -S MALLOC_ARENA_MAX=1 node --max-semi-space-size=8 --heap-growing-percent=40
/**
 * The `cv-snapshot` executable: signals become an abort, and `main` does the rest (cli/main.ts). The first line starts
 * Node with the heap settings of cli/lean-heap.ts (a test keeps the two the same).
 */
import { ExitCode } from './util/errors.js';
import { main } from './cli/main.js';
import { invocationOf } from './cli/invocation.js';

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second signal means "now": process.exit runs only the 'exit' listeners, which remove the temporary files
    // that verify, diff and pack registered (archive/exit-cleanup.ts).
    if (controller.signal.aborted) process.exit(signal === 'SIGINT' ? ExitCode.sigint : ExitCode.sigterm);
    controller.abort(signal);
  });
}
const exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
  invocation: invocationOf(process.argv[1], process.env, process.cwd()),
});
// After an interruption the command has cleaned up and said so; a read still pending in the thread pool (a pipe
// that sends nothing more) must not keep the process alive.
if (controller.signal.aborted) process.exit(exitCode);
process.exitCode = exitCode;
