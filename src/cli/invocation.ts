/**
 * How the user started this program, so that a hint names a command they can paste: `cv-snapshot` when it runs
 * as a bin found on the PATH, `npx cv-snapshot` from a project's node_modules/.bin, and the script's path (after
 * `node` when it is a .js file) otherwise. Under `npm start`, npm runs the script from the package's directory while
 * the user's shell is where npm was typed (INIT_CWD): paths in hints are then relative to that directory.
 */
import path from 'node:path';
import type { Invocation } from './command.js';

import { shellWord } from '../util/safe-text.js';

export { shellWord };

/** `file` as the user would type it from `directory`: relative when below it or one level up, else absolute. */
export function typedPath(file: string, directory: string): string {
  const relative = path.relative(directory, file);
  if (relative === '') return '.';
  return relative.split(path.sep).filter((part) => part === '..').length > 1 ? file : relative;
}

/**
 * @param script the path node ran (`process.argv[1]`)
 * @param cwd the process's working directory
 */
export function invocationOf(script: string | undefined, env: NodeJS.ProcessEnv, cwd: string): Invocation {
  const directory = env.npm_lifecycle_event === 'start' && env.INIT_CWD ? env.INIT_CWD : cwd;
  if (script === undefined || script === '') return { program: 'cv-snapshot', directory };
  const name = path.basename(script);
  const binDir = path.dirname(script);
  if (/\.[cm]?js$/.test(name)) return { program: `node ${shellWord(typedPath(script, directory))}`, directory };
  if (path.basename(binDir) === '.bin' && path.basename(path.dirname(binDir)) === 'node_modules') {
    return { program: `npx ${shellWord(name)}`, directory };
  }
  const onPath = (env.PATH ?? '')
    .split(path.delimiter)
    .some((entry) => entry !== '' && path.resolve(cwd, entry) === binDir);
  if (onPath) return { program: shellWord(name), directory };
  // A bin outside the PATH runs by its path, which needs a slash when it is relative.
  const where = typedPath(script, directory);
  const runnable = path.isAbsolute(where) || where.includes(path.sep) ? where : `.${path.sep}${where}`;
  return { program: shellWord(runnable), directory };
}
