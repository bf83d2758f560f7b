import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TreeWriter } from '../../src/store/writer.js';

const made: string[] = [];

/** A fresh temporary directory, removed after the current test. */
export async function tempDir(prefix = 'cv-snapshot-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A temporary directory for a whole suite (beforeAll); remove it with the returned function in afterAll. */
export async function suiteDir(prefix = 'cv-snapshot-suite-'): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Removes the directories `tempDir` made; test/setup.ts runs it after each test. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A tree writer into `dir` (a fresh temporary directory by default), its list of files kept in another one. */
export async function tempWriter(dir?: string): Promise<TreeWriter> {
  return new TreeWriter(dir ?? (await tempDir()), { listing: path.join(await tempDir(), 'files.list') });
}
