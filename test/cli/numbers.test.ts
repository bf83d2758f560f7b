/**
 * Numbers on the command line (fractions and odd spellings once got past the parser): every form that is not a
 * whole number in digits is refused with exit 2 and a sentence naming the option, before any request is made.
 * The crawls below point at a closed port, so a value the parser let through would end in exit 1, not 2. They run
 * the command line's `main` in this process (cli.test.ts runs the built one on a bad value).
 */
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';

const CLOSED = 'http://127.0.0.1:9/sms/cv/api/v1/';

describe('whole-number options', () => {
  // More spellings, and every whole-number option of every command, are checked in-process (options.test.ts).
  it.each([['2.5'], ['1e3'], ['0x10'], [' 5'], ['5abc'], [''], ['Infinity']])(
    '--concurrency %j is refused with exit 2, naming the option and the value',
    async (value) => {
      const result = await runMain(['crawl', CLOSED, '--concurrency', value, '--quiet']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `cv-snapshot crawl: --concurrency takes a whole number between 1 and 256, not ${JSON.stringify(value)}.\n`,
      );
    },
  );

  it.each([
    [['--concurrency', '-1'], '-1'],
    [['--concurrency=-1'], '-1'],
  ])('%j gets the range message, not a parser’s complaint', async (args, value) => {
    const result = await runMain(['crawl', CLOSED, ...args, '--quiet']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`cv-snapshot crawl: --concurrency must be between 1 and 256, not ${value}.\n`);
  });

  it.each([
    [['crawl', CLOSED, '--timeout', '10.5'], '--timeout'],
    [['serve', '--port', '80.5'], '--port'],
    [['sample-api', '--records', '1.5'], '--records'],
  ])('%j is refused with exit 2', async (args, option) => {
    const result = await runMain(args);
    expect(result.code).toBe(2);
    const message = `^cv-snapshot \\S+: ${option} takes a whole number between \\d+ and \\d+, `;
    expect(result.stderr).toMatch(new RegExp(message));
  });

  it('takes decimals for --rate and --fault-rate, within their range', async () => {
    const [rate, fault] = await Promise.all([
      runMain(['crawl', CLOSED, '--rate', '0', '--quiet']),
      runMain(['sample-api', '--fault-rate', '1.01']),
    ]);
    expect(rate.code).toBe(2);
    expect(rate.stderr).toBe('cv-snapshot crawl: --rate must be between 0.001 and 1000000, not 0.\n');
    expect(fault.code).toBe(2);
    expect(fault.stderr).toBe('cv-snapshot sample-api: --fault-rate must be between 0 and 1, not 1.01.\n');
    // Accepted: the crawl gets as far as the closed port.
    const accepted = await runMain(['crawl', CLOSED, '--rate', '0.5', '--retries', '0', '--quiet']);
    expect(accepted.code).toBe(1);
    expect(accepted.stderr).toContain('the connection was refused');
  });
});

describe('--header', () => {
  it('refuses a value with a line break with exit 2, and never prints it', async () => {
    const result = await runMain(['crawl', CLOSED, '--header', 'Authorization: Bearer s3cr3t\nX-Admin: yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^cv-snapshot crawl: --header Authorization: the value holds a line break/);
    expect(result.stderr).not.toContain('s3cr3t');
    const noName = await runMain(['crawl', CLOSED, '--header', 'Bearer s3cr3t']);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toMatch(/^cv-snapshot crawl: --header takes "Name: value"/);
    expect(noName.stderr).not.toContain('s3cr3t');
  });
});
