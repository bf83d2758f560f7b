#!/usr/bin/env node
/** The `cv-snapshot` executable: signals become an abort, and `main` does the rest (cli/main.ts). */
import { useLeanHeap } from './cli/lean-heap.js';

// Before the commands' modules load: loading them alone would grow V8's young generation to 16 MB (lean-heap.ts).
const command = process.argv[2];
if (command === 'crawl' || command === 'demo') useLeanHeap();
const { ExitCode } = await import('./errors.js');
const { main } = await import('./cli/main.js');
const { invocationOf } = await import('./cli/invocation.js');

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
