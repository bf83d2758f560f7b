#!/usr/bin/env node
/**
 * npm run docs:cli — rewrites the option tables of docs/cli.md from the commands' option definitions (src/cli), the
 * same definitions the parser and --help use. test/cli/reference.test.ts fails when a table is out of date.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCommands } from '../dist/cli/main.js';
import { beginMarker, endMarker, updateReference } from '../dist/cli/reference.js';

const referencePath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'cli.md');
const reference = await readFile(referencePath, 'utf8');
const { text, missing, stale } = updateReference(reference, await loadCommands());
if (text !== reference) await writeFile(referencePath, text);
console.log(stale.length > 0 ? `Rewrote the tables of: ${stale.join(', ')}.` : 'Every table was up to date.');
if (missing.length > 0) {
  for (const name of missing) {
    console.error(`docs/cli.md has no table for "${name}": add the lines ${beginMarker(name)} and ${endMarker(name)}`);
  }
  console.error('where the table belongs, then run npm run docs:cli again.');
  process.exitCode = 1;
}
