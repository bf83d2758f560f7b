/**
 * Temporary files and directories that must not outlive the process, however it ends: the CLI answers a second
 * SIGINT or SIGTERM with process.exit, which runs no `finally` block and settles no promise, only the synchronous
 * 'exit' listeners. Each path is registered while it exists and removed there, synchronously, if it still does.
 *
 * One listener for the whole process (not one per path) keeps Node's listener-count warning away when many
 * extractions run at once, as they do in the tests.
 */
import { rmSync } from 'node:fs';

const pending = new Set<string>();
let listening = false;

function removeAll(): void {
  for (const target of pending) {
    try {
      // A write still in flight on the thread pool may add a file while the tree is removed: retry once or twice.
      rmSync(target, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // Nothing more can be done while the process exits.
    }
  }
  pending.clear();
}

/**
 * Removes `target` if the process exits while it is registered. Returns the function that unregisters it: call it
 * once the path has been removed or renamed into place.
 */
export function removeOnExit(target: string): () => void {
  if (!listening) {
    process.on('exit', removeAll);
    listening = true;
  }
  pending.add(target);
  return () => {
    pending.delete(target);
  };
}
