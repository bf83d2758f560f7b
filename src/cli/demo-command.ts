import path from 'node:path';
import { startSampleApi } from '../sample-api/index.js';
import { verifySnapshot } from '../verify/verify-snapshot.js';
import { ExitCode } from '../util/errors.js';
import { defineCommand } from './command.js';
import { CRAWL_OPTIONS, REPORT_OPTIONS, runCrawl } from './crawl-command.js';
import { shellWord, typedPath } from './invocation.js';
import { SAMPLE_DATA_OPTIONS, sampleData } from './sample-api-command.js';
import { printableLines } from '../util/safe-text.js';

export const demoCommand = defineCommand({
  name: 'demo',
  summary:
    'Start the sample API in this process, crawl it into --out, verify the snapshot, and print the summary ' +
    '(npm start).',
  args: [],
  options: {
    out: CRAWL_OPTIONS.out,
    concurrency: CRAWL_OPTIONS.concurrency,
    links: CRAWL_OPTIONS.links,
    baseUrl: CRAWL_OPTIONS.baseUrl,
    ...REPORT_OPTIONS,
    ...SAMPLE_DATA_OPTIONS,
  },
  details: `
The sample API listens on a free port of 127.0.0.1; every other crawl option has its default.

Exit codes: 0 the snapshot is published and sound; 1 the crawl failed; 2 bad command line; 3 verify found problems.`,
  failure: ({ json }) => ({ json }),
  async run(_args, { out, concurrency, links, baseUrl, quiet, json, ...data }, io) {
    const api = await startSampleApi(sampleData(data));
    const rootPath = new URL(api.rootUrl).pathname;
    try {
      io.stderr.write(`Sample API at ${api.rootUrl}\n`);
      const code = await runCrawl(api.rootUrl, { out, concurrency, links, baseUrl, quiet, json }, io);
      if (code !== 0) return code;
    } finally {
      await api.close();
    }
    const result = await verifySnapshot(out);
    if (result.problems.length > 0) {
      for (const problem of result.problems) io.stderr.write(`${printableLines(problem)}\n`);
      return ExitCode.invalid;
    }
    const { program, directory } = io.invocation ?? { program: 'cv-snapshot', directory: process.cwd() };
    io.stderr.write(
      `verify: ${result.files} files match SHA256SUMS, ${result.links} links resolve, every document validates.\n` +
        `Serve it like the live API: ${program} serve ${shellWord(typedPath(path.resolve(out), directory))}\n` +
        `Browse it: open ${shellWord(path.resolve(out, 'index.html'))} in a browser (no server needed), or, ` +
        `while serve runs, http://127.0.0.1:3000${rootPath}\n`,
    );
    return 0;
  },
});
