/** The option tables of docs/cli.md are the definitions' (src/cli/reference.ts; `npm run docs:cli` rewrites them). */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineCommand } from '../../src/cli/command.js';
import { loadCommands } from '../../src/cli/main.js';
import { flag } from '../../src/cli/options.js';
import { beginMarker, endMarker, optionTable, updateReference } from '../../src/cli/reference.js';

const COMMANDS = await loadCommands();

const REFERENCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/cli.md');

describe('docs/cli.md option tables', () => {
  it('has a table for every command, equal to what its option definitions give', async () => {
    const reference = await readFile(REFERENCE, 'utf8');
    const { missing, stale } = updateReference(reference, COMMANDS);
    expect(
      missing,
      `docs/cli.md has no option table for ${missing.join(', ')}: add the lines ` +
        `${missing.map((name) => `${beginMarker(name)} ${endMarker(name)}`).join(', ')} where the table belongs ` +
        '(under the command), then run "npm run docs:cli" and commit docs/cli.md.',
    ).toEqual([]);
    expect(
      stale,
      `docs/cli.md's option table of ${stale.join(', ')} differs from the option definitions in src/cli: ` +
        'run "npm run docs:cli" to regenerate the tables, then commit docs/cli.md.',
    ).toEqual([]);
  });

  it('lists every option with its placeholder or choices and its default', () => {
    const crawl = optionTable(COMMANDS.find((c) => c.name === 'crawl')!);
    expect(crawl).toContain('| `--concurrency <n>` | `8` |');
    expect(crawl).toContain('| `--links <relative\\|absolute\\|original>` | `relative` |');
    expect(crawl).toContain('| `--rate <req/s>` | no limit |');
    expect(crawl).toContain('| `--strict` | off |');
    expect(crawl).toContain('| `<root-url>` |  |');
  });

  it('notices an option added to a command but not to docs/cli.md', async () => {
    const reference = await readFile(REFERENCE, 'utf8');
    const verify = COMMANDS.find((c) => c.name === 'verify')!;
    const grown = defineCommand({
      ...verify,
      options: { ...verify.options, fast: flag('fast', { description: 'A new option.' }) },
      run: () => Promise.resolve(0),
    });
    const check = updateReference(reference, [grown]);
    expect(check.stale).toEqual(['verify']);
    expect(check.text).toContain('| `--fast` | off | A new option. |');
  });
});
