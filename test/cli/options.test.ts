/** The typed option definitions and the parser built from them, in-process (test/cli/*.test.ts run dist/cli.js). */
import { describe, expect, it } from 'vitest';
import { defineCommand, formatHelp, parseCommandLine, type Command } from '../../src/cli/command.js';
import { crawlCommand } from '../../src/cli/crawl-command.js';
import { loadCommands } from '../../src/cli/main.js';
import { integer, text } from '../../src/cli/options.js';
import { UsageError } from '../../src/util/errors.js';
import { DEFAULTS } from '../../src/pipeline/snapshot-options.js';

const COMMANDS = await loadCommands();

/** The UsageError message of parsing `argv`, or undefined when it parses. */
function refusal(command: Command, argv: string[]): string | undefined {
  try {
    command.prepare(argv, 'cv-snapshot');
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
}

/** The positional arguments a command needs, so that only the option under test can be wrong. */
const needed = (command: Command): string[] => command.args.filter((a) => !a.optional).map(() => 'http://127.0.0.1:9/');

describe('typed options', () => {
  it('parses values to their types, with the library defaults where nothing is given', () => {
    const parsed = parseCommandLine(
      crawlCommand,
      ['http://127.0.0.1:9/', '--concurrency', '3', '--rate=0.5', '--header', 'A: 1', '--header', 'B: 2', '--strict'],
      'cv-snapshot',
    );
    if (parsed === 'help') throw new Error('not help');
    expect(parsed.args).toEqual(['http://127.0.0.1:9/']);
    expect(parsed.options).toMatchObject({
      concurrency: 3,
      rate: 0.5,
      headers: ['A: 1', 'B: 2'],
      strict: true,
      resume: false,
      timeoutMs: 30_000,
      retries: 5,
      maxBytes: 64 * 1024 * 1024,
      links: 'relative',
      baseUrl: undefined,
      out: 'out',
    });
    // Each default is the library's: the command line shows and applies the same value.
    expect(parsed.options.retries).toBe(DEFAULTS.retries);
  });

  it('refuses a fraction in every whole-number option of every command, naming the option and the value', () => {
    let checked = 0;
    for (const command of COMMANDS) {
      for (const option of Object.values(command.options).filter((o) => o.kind === 'integer')) {
        expect(refusal(command, [...needed(command), `--${option.flag}`, '2.5'])).toMatch(
          new RegExp(`^--${option.flag} takes a whole number between -?\\d+ and \\d+, not "2\\.5"\\.$`),
        );
        checked++;
      }
    }
    // 5 in crawl, serve's port, sample-api's port and 5 data options, demo's concurrency and the same 5.
    expect(checked).toBeGreaterThanOrEqual(18);
  });

  it.each(['1.0', '5 ', '+5', '\u0661\u0662', '1_000', '--1', '0b1', '\n5'])(
    'refuses %j as a whole number',
    (value) => {
      expect(refusal(crawlCommand, ['http://127.0.0.1:9/', `--retries=${value}`])).toBe(
        `--retries takes a whole number between 0 and 100, not ${JSON.stringify(value)}.`,
      );
    },
  );

  it('gives the range for a whole number outside it', () => {
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '--concurrency', '0'])).toBe(
      '--concurrency must be between 1 and 256, not 0.',
    );
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '--concurrency', '257'])).toBe(
      '--concurrency must be between 1 and 256, not 257.',
    );
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '--concurrency', '00256'])).toBeUndefined();
  });

  it('takes decimals where a share or a rate is meant', () => {
    const crawl = parseCommandLine(crawlCommand, ['http://127.0.0.1:9/', '--rate', '.25'], 'cv-snapshot');
    expect(crawl !== 'help' && crawl.options.rate).toBe(0.25);
    const sampleApi = COMMANDS.find((c) => c.name === 'sample-api')!;
    expect(refusal(sampleApi, ['--fault-rate', '0.5'])).toBeUndefined();
    expect(refusal(sampleApi, ['--fault-rate', '1.5'])).toBe('--fault-rate must be between 0 and 1, not 1.5.');
    expect(refusal(sampleApi, ['--fault-rate', '5e-1'])).toMatch(/^--fault-rate takes a number .*, not "5e-1"\.$/);
  });

  it('refuses a header with a control character or a bad name, and never shows the value', () => {
    const secret = 'Bearer s3cr3t';
    for (const header of [
      `Authorization: ${secret}\nX-Injected: 1`,
      `Authorization: ${secret}\r`,
      `Authorization: ${secret}\u0000`,
      `Authorization: ${secret}\u001b[2J`,
      secret,
      `Auth orization: ${secret}`,
      `: ${secret}`,
    ]) {
      const message = refusal(crawlCommand, ['http://127.0.0.1:9/', '--header', header]);
      expect(message).toMatch(/^--header /);
      expect(message).not.toContain('s3cr3t');
    }
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '--header', `X-Api-Key: caf\u00e9\t1`])).toBeUndefined();
  });

  it('names an unknown option, suggests the near one, and never shows what followed "="', () => {
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '--headr=Authorization: Bearer s3cr3t'])).toBe(
      'there is no option --headr. Did you mean --header? Run "cv-snapshot crawl --help" for its options.',
    );
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '-x'])).toMatch(/^there is no option -x\. /);
  });

  it('refuses an empty path, a flag with a value, and a value that is really the next option', () => {
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '--out='])).toMatch(/^--out needs a value \(<dir>\)/);
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '--strict=no'])).toMatch(/^--strict takes no value/);
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '--out', '--strict'])).toMatch(/^--out needs a value/);
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '--out=--strict'])).toBeUndefined();
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '--links', 'weird'])).toBe(
      '--links takes one of relative, absolute, original, not "weird".',
    );
    expect(refusal(crawlCommand, ['http://127.0.0.1:9/', '--base-url', 'cv.example.org'])).toMatch(
      /^--base-url takes an absolute http or https URL/,
    );
  });

  it('shows help for -h or --help anywhere before "--", whatever else is wrong', () => {
    expect(parseCommandLine(crawlCommand, ['--bogus', '--concurrency', 'x', '-h'], 'cv-snapshot')).toBe('help');
    expect(refusal(crawlCommand, ['--', '--help'])).toBeUndefined();
  });

  it('lays out help in columns as wide as the labels, putting a label too long for them on its own line', () => {
    const long = 'a-very-long-option-name-that-needs-a-line-of-its-own';
    const command = defineCommand({
      name: 'example',
      summary: 'An example.',
      args: [],
      options: {
        short: integer('n', { placeholder: 'n', default: 1, min: 0, max: 9, description: 'A short one.' }),
        long: text(long, { placeholder: 'value', default: undefined, description: 'word '.repeat(40).trim() }),
      },
      run: () => Promise.resolve(0),
    });
    const lines = formatHelp('cv-snapshot', command).split('\n');
    const options = lines.slice(lines.indexOf('Options:') + 1);
    expect(options[0]).toMatch(/^ {2}--n <n>\s+A short one\. \(default: 1\)$/);
    const column = options[0]!.indexOf('A short');
    expect(options[1]).toBe(`  --${long} <value>`);
    expect(options[2]!.indexOf('word')).toBe(column);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
  });
});
