#!/usr/bin/env node
/**
 * Part of npm run build, after tsc: bundles the command line (dist/cli.js) and the document worker thread it starts
 * (dist/document-worker.js) with what they import, undici and zod included, into a few files in dist/. The library
 * (dist/index.js and the files beside it) stays as tsc wrote it.
 *
 * Why: Node 20 resolves, reads and compiles every module of an ES module graph one by one, and has no compile cache.
 * Loading the crawl's 150 modules of our own and its dependencies' took 230-255 ms before the first request could go
 * out; bundled, `cv-snapshot crawl --help` takes 199 ms in all instead of 295 ms (docs/architecture.md, *Start-up*).
 *
 * The layout is fixed by two URLs the code builds from import.meta.url: the worker is `./document-worker.js` beside
 * the code that starts it, and package.json is `../package.json` (src/version.ts). So every file of the bundle lies
 * directly in dist/, as the modules tsc wrote there do.
 */
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');

await build({
  entryPoints: {
    cli: path.join(dist, 'cli.js'),
    'document-worker': path.join(dist, 'pipeline', 'document-worker.js'),
  },
  outdir: dist,
  allowOverwrite: true,
  bundle: true,
  // The commands other than the one run load only when asked for (src/cli/main.ts): each is a chunk of its own.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // undici is CommonJS and requires Node's modules; an ES module has no `require` of its own.
  banner: {
    js: "import { createRequire as __cvRequire } from 'node:module'; const require = __cvRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
chmodSync(path.join(dist, 'cli.js'), 0o755);
