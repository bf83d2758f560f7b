/**
 * The progress of finalize: the report, catalogue and SHA256SUMS hold the event loop for seconds at 200,000
 * documents, so each stage is written as it starts: a line in a log, the live line on a terminal (cleared at the end).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

/** A stream that keeps what is written to it. */
function collector(): { stream: NodeJS.WritableStream; text: () => string } {
  let written = '';
  const stream = { write: (chunk: string) => ((written += chunk), true) } as unknown as NodeJS.WritableStream;
  return { stream, text: () => written };
}

const STAGES = [
  'finalize: the complete collections and the validation report of ',
  "finalize: the catalogue's index of the records…",
  "finalize: the catalogue's index of the records, compared with the snapshot --out held for the Changes page…",
  "finalize: the catalogue's pages and its SKOS and CSV downloads…",
  'finalize: SHA256SUMS…',
];

describe('progress of finalize', () => {
  let api: SampleApi;
  let base: string;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    ({ dir: base, remove } = await suiteDir());
    api = await startSampleApi({ records: 2 });
  });
  afterAll(async () => {
    await api.close();
    await remove();
  });

  it('writes a line per stage in a log, in order, and compares only when --out held a snapshot', async () => {
    const out = path.join(base, 'log');
    const first = collector();
    const result = await crawlForTest(api.rootUrl, out, { progress: { stream: first.stream, mode: 'lines' } });
    const lines = first.text().split('\n');
    const started = `${STAGES[0]}${result.documents} documents…`;
    // No snapshot in --out before the first crawl: nothing to compare with.
    expect(lines.filter((line) => line.startsWith('finalize: '))).toEqual([started, STAGES[1], ...STAGES.slice(3)]);

    const second = collector();
    await crawlForTest(api.rootUrl, out, { progress: { stream: second.stream, mode: 'lines' } });
    expect(
      second
        .text()
        .split('\n')
        .filter((line) => line.startsWith('finalize: ')),
    ).toEqual([started, ...STAGES.slice(2)]);
  });

  it('rewrites the live line on a terminal and clears it at the end; writes nothing when quiet', async () => {
    const tty = collector();
    await crawlForTest(api.rootUrl, path.join(base, 'tty'), { progress: { stream: tty.stream, mode: 'tty' } });
    expect(tty.text()).toContain(`\r\u001b[K${STAGES[4]}`);
    expect(tty.text().endsWith(`\r\u001b[K${STAGES[4]}\r\u001b[K`)).toBe(true);
    expect(tty.text()).not.toContain('\n');

    const quiet = collector();
    await crawlForTest(api.rootUrl, path.join(base, 'quiet'), { progress: { stream: quiet.stream, mode: 'off' } });
    expect(quiet.text()).toBe('');
  });
});
