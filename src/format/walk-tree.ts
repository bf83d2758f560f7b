/**
 * The walk of a snapshot tree that may not be what crawl wrote (verify, pack): every entry visited, nothing followed
 * or opened that is not a regular file or a directory.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { throwIfStopped } from '../util/errors.js';
import { kindOf } from './safe-read.js';

export interface TreeVisitor {
  /** A regular file (its size, where wanted, is the visitor's to ask: verify does not need it). */
  file(rel: string): void;
  /** A directory, before its contents; return false to leave its contents unvisited. */
  dir?(rel: string): boolean;
  /** Anything else (symbolic link, named pipe, socket, device): never followed or opened. */
  special(rel: string, kind: string): void;
}

/** Directories read between two turns of the event loop, so that a signal is seen while a large tree is walked. */
const DIRS_PER_TURN = 256;

/**
 * Visits every entry below `root` (paths relative to it, POSIX separators), directories before their contents.
 * Synchronous reads in batches: a snapshot has tens of thousands of small directories, and a thread-pool round
 * trip per directory costs more than the read itself.
 */
export async function walkTree(root: string, visitor: TreeVisitor, signal?: AbortSignal): Promise<void> {
  const stack: string[] = [''];
  let read = 0;
  while (stack.length > 0) {
    const relDir = stack.pop()!;
    const dirents = readdirSync(relDir === '' ? root : path.join(root, ...relDir.split('/')), { withFileTypes: true });
    for (const dirent of dirents) {
      const rel = relDir === '' ? dirent.name : `${relDir}/${dirent.name}`;
      if (dirent.isDirectory()) {
        if (visitor.dir?.(rel) !== false) stack.push(rel);
      } else if (dirent.isFile()) {
        visitor.file(rel);
      } else {
        visitor.special(rel, kindOf(dirent));
      }
    }
    if (++read % DIRS_PER_TURN === 0) {
      await nextTurn();
      throwIfStopped(signal);
    }
  }
}
