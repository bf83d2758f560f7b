import { accessSync, constants, statfsSync } from 'node:fs';
import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/** statfs's type of a file system held in memory (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;

/**
 * The tests' temporary directory: /dev/shm where it is a writable tmpfs and TMPDIR is not set. The tests crawl into
 * fresh folders all the time, and on a disk file system creating those tens of thousands of small files is about a
 * third of the suite's system time; TMPDIR set by the user wins.
 */
function testTempDir(): Record<string, string> {
  if (process.env.TMPDIR !== undefined) return {};
  try {
    if (statfsSync('/dev/shm').type !== TMPFS_MAGIC) return {};
    accessSync('/dev/shm', constants.W_OK);
    return { TMPDIR: '/dev/shm' };
  } catch {
    return {};
  }
}

/** Tests that replace a module of the program (vi.mock): they need modules of their own, imported afresh. */
const MOCKING_MODULES = ['test/pipeline/one-pass.test.ts'];

/** What every test file runs with. */
const EVERY_FILE = {
  // Hooks every file needs (test/setup.ts runs before each file).
  setupFiles: ['test/setup.ts'],
  // Tests crawl real servers on 127.0.0.1; on a busy 2-core machine a few seconds is not a hang.
  testTimeout: 30_000,
  hookTimeout: 60_000,
  env: testTempDir(),
};

export default defineConfig({
  test: {
    // Most tests wait on a server, a child process or the disk, so one test file per core keeps a small machine busy;
    // vitest's default of one worker fewer than the cores runs the files one after another on 2 cores.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    projects: [
      {
        test: {
          ...EVERY_FILE,
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...MOCKING_MODULES],
          // The test files of a worker share its modules: importing the program's modules afresh for each of 120
          // files costs a quarter of the suite's CPU. Nothing in src/ keeps state between runs of a command, and the
          // tests that replace a method put it back.
          isolate: false,
        },
      },
      { test: { ...EVERY_FILE, name: 'isolated', include: MOCKING_MODULES } },
    ],
  },
});
