/**
 * What `serve` cannot do as the snapshot asks goes to stderr as plain lines, like its request log: no Node process
 * warning (`(node:PID) Warning:`, the `--trace-warnings` hint) and no stack.
 */
import { once } from 'node:events';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SnapshotAnswers } from '../../src/serve/answer.js';
import { startCli } from '../helpers/cli.js';
import { serveWarnings } from '../helpers/serve-warnings.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTinySource } from '../helpers/tiny-source.js';
import { crawlForTest } from '../helpers/crawl.js';

describe('serve on a snapshot whose _headers it must partly leave out', () => {
  it('says so in one plain line on stderr, before the request log', async () => {
    const source = await startTinySource();
    const out = path.join(await tempDir(), 'out');
    try {
      await crawlForTest(source.root, out);
    } finally {
      await source.close();
    }
    await appendFile(path.join(out, '_headers'), '/*\n  X-Bad: a\u0000b\n');
    const { child, firstLine } = await startCli(['serve', out, '--port', '0']);
    try {
      const response = await fetch(firstLine);
      expect(response.status).toBe(200);
      let stderr = '';
      while (!stderr.includes(' 200 ')) {
        const [chunk] = (await once(child.stderr!, 'data')) as [Buffer];
        stderr += chunk.toString();
      }
      const lines = stderr.split('\n');
      expect(lines[0]).toMatch(
        /^cv-snapshot serve: \S+: 1 header left out, .*: line \d+ \(X-Bad\); the others are sent\.$/,
      );
      expect(lines[0]).toContain(`${out}/_headers: 1 header left out, which no HTTP answer may carry`);
      expect(lines[1]).toMatch(/^GET \/api\/ 200 \d+B [\d.]+ms$/);
      expect(stderr).not.toContain('(node:');
      expect(stderr).not.toContain('--trace-warnings');
    } finally {
      child.kill('SIGINT');
      await once(child, 'exit');
    }
  });
});

describe('a request serve fails to answer for a fault of its own', () => {
  it('is a 500 and one line naming the request and the error, without a stack', async () => {
    const source = await startTinySource();
    const out = path.join(await tempDir(), 'out');
    try {
      await crawlForTest(source.root, out);
    } finally {
      await source.close();
    }
    // No snapshot makes serve fail by itself (damaged files are answered with what is wrong with them), so the
    // fault is put in its place.
    const fault = vi.spyOn(SnapshotAnswers.prototype, 'answer').mockRejectedValue(new TypeError('x is not a function'));
    try {
      const warnings = await serveWarnings(out, async (serve) => {
        expect((await fetch(`${serve.url}units/`)).status).toBe(500);
      });
      expect(warnings).toEqual([
        'cv-snapshot serve: GET /api/units/ failed (TypeError: x is not a function); this is a fault in cv-snapshot ' +
          'serve: please report it with this line.',
      ]);
    } finally {
      fault.mockRestore();
    }
  });
});
