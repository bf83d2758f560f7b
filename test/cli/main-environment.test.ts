/**
 * `main` reads the environment it is given, not the process's: a crawl run in-process with SOURCE_DATE_EPOCH in that
 * environment records that time, as the built command line does with the variable set.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { TEST_EPOCH } from '../helpers/crawl.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTinySource, type TinySource } from '../helpers/tiny-source.js';

let source: TinySource | undefined;
afterEach(async () => {
  await source?.close();
  source = undefined;
});

describe('main', () => {
  it('records the time SOURCE_DATE_EPOCH gives in the environment it was handed', async () => {
    expect(process.env.SOURCE_DATE_EPOCH).toBeUndefined();
    source = await startTinySource();
    const out = path.join(await tempDir(), 'out');
    const result = await runMain(['crawl', source.root, '--out', out, '--quiet', '--catalogue', 'none'], {
      env: { SOURCE_DATE_EPOCH: TEST_EPOCH },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const manifest = JSON.parse(await readFile(path.join(out, '_cv-snapshot', 'manifest.json'), 'utf8')) as {
      createdAt: string;
    };
    expect(manifest.createdAt).toBe('2023-11-14T22:13:20.000Z');
  });
});
