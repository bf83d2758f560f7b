/**
 * The executable starts Node with the heap settings of src/cli/lean-heap.ts on its first line (before V8 starts, as
 * Node supports), the built file runs as a program through that line, and `npm start` gives node the same V8 flags.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LEAN_HEAP_ENV, LEAN_HEAP_FLAGS, SHEBANG } from '../../src/cli/lean-heap.js';
import { TOOL_VERSION } from '../../src/version.js';
import { CLI } from '../helpers/cli.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const firstLine = async (file: string) => (await readFile(file, 'utf8')).split('\n', 1)[0];

describe('the cv-snapshot executable', () => {
  it('carries the heap flags on its first line, in the source and in the build', async () => {
    expect(SHEBANG).toBe(`#!/usr/bin/env -S ${LEAN_HEAP_ENV.join(' ')} node ${LEAN_HEAP_FLAGS.join(' ')}`);
    expect(await firstLine(path.join(REPO, 'src', 'cli.ts'))).toBe(SHEBANG);
    expect(await firstLine(CLI)).toBe(SHEBANG);
    const scripts = (
      JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(scripts.start).toBe(`node ${LEAN_HEAP_FLAGS.join(' ')} dist/cli.js demo`);
  });

  it('runs as a program through that line, and Node accepts the flags', async () => {
    const { stdout } = await promisify(execFile)(CLI, ['--version']);
    expect(stdout.trim()).toBe(TOOL_VERSION);
    // Node refuses an unknown flag before running anything: these are taken.
    const probe = await promisify(execFile)(process.execPath, [
      ...LEAN_HEAP_FLAGS,
      '-p',
      'JSON.stringify(process.execArgv)',
    ]);
    expect(JSON.parse(probe.stdout) as string[]).toEqual(expect.arrayContaining([...LEAN_HEAP_FLAGS]));
  });
});
