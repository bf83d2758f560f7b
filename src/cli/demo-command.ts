import path from 'node:path';
import { startSampleApi } from '../sample-api/index.js';
import { verifySnapshot } from '../snapshot/verify.js';
import { ExitCode } from '../errors.js';
import type { CommandDef } from './command.js';
import { CRAWL_OPTIONS, runCrawl } from './crawl-command.js';
import { SAMPLE_API_OPTIONS, sampleApiOptions } from './sample-api-command.js';

const DEMO_CRAWL_OPTIONS = CRAWL_OPTIONS.filter((o) => ['out', 'concurrency', 'links', 'base-url', 'quiet', 'json'].includes(o.name));

export const demoCommand: CommandDef = {
  name: 'demo',
  summary: 'Start the sample API in this process, crawl it into --out, verify the snapshot, and print the summary (npm start).',
  args: [],
  options: [...DEMO_CRAWL_OPTIONS, ...SAMPLE_API_OPTIONS],
  async run(_args, options, io) {
    const api = await startSampleApi(sampleApiOptions(options));
    try {
      io.stderr.write(`Sample API at ${api.rootUrl}\n`);
      const code = await runCrawl(api.rootUrl, { ...options, header: [], 'collection-index': 'complete', retries: 5, timeout: 30_000, 'max-bytes': 64 * 1024 * 1024 }, io);
      if (code !== 0) return code;
    } finally {
      await api.close();
    }
    const out = options.out as string;
    const result = await verifySnapshot(out);
    if (result.problems.length > 0) {
      for (const problem of result.problems) io.stderr.write(`${problem}\n`);
      return ExitCode.invalid;
    }
    io.stderr.write(
      `verify: ${result.files} files match SHA256SUMS, ${result.links} links resolve, every document validates.\n` +
        `Serve it like the live API: node dist/cli.js serve ${path.relative(process.cwd(), path.resolve(out)) || '.'}\n`,
    );
    return 0;
  },
};
