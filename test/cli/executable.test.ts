/**
 * The executable starts Node with the heap settings of src/cli/lean-heap.ts on its first line (before V8 starts, as
 * Node supports), the built file runs as a program through that line, and `npm start` gives node the same V8 flags.
 * It is a bundle (scripts/bundle-cli.mjs) that carries what it imports, which is what makes it start fast, and each
 * command loads only the chunks it needs.
 */
import { execFile } from 'node:child_process';
import { copyFile, cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LEAN_HEAP_ENV, LEAN_HEAP_FLAGS, SHEBANG } from '../../src/cli/lean-heap.js';
import { canonicalUrl } from '../../src/url/canonical-url.js';
import { startSampleApi } from '../../src/sample-api/index.js';
import { TOOL_VERSION } from '../../src/version.js';
import { CLI } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

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

  it('carries what it imports: a copy of dist/ with no node_modules crawls, with a worker thread', async () => {
    // A temporary directory has no node_modules above it: a module left out of the bundle would not resolve there.
    const copy = await tempDir();
    await cp(path.join(REPO, 'dist'), path.join(copy, 'dist'), { recursive: true });
    await copyFile(path.join(REPO, 'package.json'), path.join(copy, 'package.json'));
    const api = await startSampleApi({ records: 2 });
    try {
      const args = ['crawl', api.rootUrl, '--out', path.join(copy, 'out'), '--workers', '1', '--quiet', '--json'];
      const { stdout } = await promisify(execFile)(process.execPath, [path.join(copy, 'dist', 'cli.js'), ...args]);
      const expected = new Set(api.documentUrls().map((url) => canonicalUrl(url)));
      expect((JSON.parse(stdout) as { documents: number }).documents).toBe(expected.size);
      const version = await promisify(execFile)(process.execPath, [path.join(copy, 'dist', 'cli.js'), '--version']);
      expect(version.stdout.trim()).toBe(TOOL_VERSION);
    } finally {
      await api.close();
    }
  });

  it('loads for each command only what it uses: no HTTP client without requests, zod in English only', async () => {
    const reached = async (command: string) => modulesOfCommand(await readFile(CLI, 'utf8'), command);
    const crawl = await reached('crawl');
    // The check can fail: the crawl's chunks hold the HTTP client and zod's English messages.
    expect(crawl.some((module) => module.startsWith('node_modules/undici/'))).toBe(true);
    expect(crawl).toContain('node_modules/zod/v4/locales/en.js');
    for (const command of ['verify', 'export', 'diff', 'pack', 'catalogue', 'serve']) {
      const modules = await reached(command);
      expect(modules.length, command).toBeGreaterThan(20);
      expect(
        modules.filter((module) => module.startsWith('node_modules/undici/')),
        command,
      ).toEqual([]);
    }
    // serve answers from the files it finds: it builds no catalogue and exports nothing.
    const serve = await reached('serve');
    expect(serve.filter((module) => /^dist\/(catalogue\/build-catalogue|export\/)/.test(module))).toEqual([]);
    expect(crawl).toContain('dist/catalogue/build-catalogue.js');
    const locales = crawl.filter((module) => module.startsWith('node_modules/zod/v4/locales/'));
    expect(locales).toEqual(['node_modules/zod/v4/locales/en.js']);
  });
});

/**
 * The modules bundled into the chunks a command loads: the chunk dist/cli.js imports for it and every chunk those
 * import, each module named by the comment esbuild starts it with (`// node_modules/undici/index.js`).
 */
async function modulesOfCommand(cli: string, command: string): Promise<string[]> {
  const entry = new RegExp(`import\\("\\./(chunk-\\w+\\.js)"\\)\\)\\.${command}Command`).exec(cli)?.[1];
  if (entry === undefined) throw new Error(`dist/cli.js loads no chunk for ${command}`);
  const modules: string[] = [];
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const chunk = queue.shift()!;
    if (seen.has(chunk)) continue;
    seen.add(chunk);
    const text = await readFile(path.join(REPO, 'dist', chunk), 'utf8');
    for (const [, imported] of text.matchAll(/^(?:import|export)\b[^;]*?from "\.\/(chunk-\w+\.js)";$/gms)) {
      queue.push(imported!);
    }
    for (const [, imported] of text.matchAll(/^import "\.\/(chunk-\w+\.js)";$/gm)) queue.push(imported!);
    for (const [, module] of text.matchAll(/^\/\/ ((?:dist|node_modules)\/\S+)$/gm)) modules.push(module!);
  }
  return modules;
}
