#!/usr/bin/env node
/**
 * npm run docs:cli — rewrites the README's option tables from the commands' option definitions (src/cli), the same
 * definitions the parser and --help use. test/cli/reference.test.ts fails when a table is out of date.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCommands } from '../dist/cli/main.js';
import { beginMarker, endMarker, updateReference } from '../dist/cli/reference.js';

const readmePath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
const readme = await readFile(readmePath, 'utf8');
const { text, missing, stale } = updateReference(readme, await loadCommands());
if (text !== readme) await writeFile(readmePath, text);
console.log(stale.length > 0 ? `Rewrote the tables of: ${stale.join(', ')}.` : 'Every table was up to date.');
if (missing.length > 0) {
  for (const name of missing) {
    console.error(`README.md has no table for "${name}": add the lines ${beginMarker(name)} and ${endMarker(name)}`);
  }
  console.error('where the table belongs, then run npm run docs:cli again.');
  process.exitCode = 1;
}
