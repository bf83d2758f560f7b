/**
 * The example outputs in the README and docs/ are what the commands print (scripts/readme-examples.mjs;
 * `npm run docs:examples` rewrites them). Runs the built CLI, so `npm run build` first (npm test does).
 */
import { describe, expect, it } from 'vitest';
import {
  beginMarker,
  EXAMPLE_PORT,
  endMarker,
  produceExamples,
  readExamplePages,
  updateExamplePages,
  updateExamples,
  withoutTimings,
} from '../../scripts/readme-examples.mjs';

/** The examples as the pages show them, at its port when that is free; else at any port, the port masked. */
async function examples(): Promise<{ examples: Map<string, string>; comparable: (text: string) => string }> {
  try {
    return { examples: await produceExamples(), comparable: withoutTimings };
  } catch (error) {
    // Another run of this test on the machine holds the port: the port and what depends on it (the manifest's
    // root, and so the archive's SHA-256) differ, and only they are masked.
    if (!(error instanceof Error) || error.name !== 'SampleApiError') throw error;
    const mask = (text: string) =>
      withoutTimings(text)
        .replace(/127\.0\.0\.1:\d+/g, `127.0.0.1:${EXAMPLE_PORT}`)
        .replace(/--port \d+/g, `--port ${EXAMPLE_PORT}`)
        .replace(/\b[0-9a-f]{64}\b/g, '<sha256>');
    return { examples: await produceExamples({ port: 0 }), comparable: mask };
  }
}

describe('Examples in the README and docs/', () => {
  // Two crawls of about 940 documents, verify, pack, diff, serve and the library example: about 10 s on an idle
  // 2-core machine, three times that when other test files load it, hence its own time limit.
  it('show what the commands print against the sample API', async () => {
    const pages = await readExamplePages();
    const produced = await examples();
    const { missing, stale } = updateExamplePages(pages, produced.examples, produced.comparable);
    expect(
      missing,
      `No page holds a block for ${missing.join(', ')}: add ` +
        `${missing.map((name) => `${beginMarker(name)} ${endMarker(name)}`).join(', ')} to README.md or a page ` +
        'of docs/ (scripts/readme-examples.mjs lists them), then run "npm run docs:examples".',
    ).toEqual([]);
    expect(stale, `The examples ${stale.join(', ')} are out of date: run "npm run docs:examples".`).toEqual([]);
  }, 120_000);

  it('notices a block that differs from the output, but not a different duration', () => {
    const examples = new Map([['crawl', '9 documents in 1.5 s (6 req/s, 0 retries).']]);
    const readme = (body: string) => `${beginMarker('crawl')}\n\`\`\`\n${body}\n\`\`\`\n${endMarker('crawl')}\n`;
    const slower = readme('9 documents in 12.0 s (1 req/s, 0 retries).');
    expect(updateExamples(slower, examples, withoutTimings).stale).toEqual([]);
    const other = readme('8 documents in 1.5 s (6 req/s, 0 retries).');
    const updated = updateExamples(other, examples, withoutTimings);
    expect(updated.stale).toEqual(['crawl']);
    expect(updated.text).toBe(readme('9 documents in 1.5 s (6 req/s, 0 retries).'));
    expect(updateExamples('no markers here', examples).missing).toEqual(['crawl']);
  });
});
