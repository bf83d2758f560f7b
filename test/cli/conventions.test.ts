/**
 * Command-line conventions (README "CLI reference"): help wins, and usage errors go to stderr.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('help and usage errors', () => {
  it('shows help and exits 0 when --help or -h comes with an unknown option or a bad value', async () => {
    const [bogus, badValue, help] = await Promise.all([
      runCli(['crawl', '--help', '--bogus']),
      runCli(['verify', 'a', 'b', 'c', '--concurrency', 'x', '-h']),
      runCli(['help', 'crawl']),
    ]);
    expect(bogus.code).toBe(0);
    expect(bogus.stderr).toBe('');
    expect(bogus.stdout).toMatch(/^Usage: cv-snapshot crawl <root-url> \[options\]\n/);
    expect(badValue.code).toBe(0);
    expect(badValue.stdout).toMatch(/^Usage: cv-snapshot verify \[dir\] \[options\]\n/);
    expect(help.stdout).toBe(bogus.stdout);
  });

  it('puts usage errors on stderr, with nothing on stdout', async () => {
    const [none, unknown] = await Promise.all([runCli([]), runCli(['crwal'])]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^Usage: cv-snapshot <command> \[options\]\n/);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^cv-snapshot: there is no command "crwal"\. Commands: crawl, verify, /);
  });

  it('keeps the options of crawl --help in their columns, a label too long for them on a line of its own', async () => {
    const { stdout } = await runCli(['crawl', '--help']);
    const lines = stdout.split('\n');
    const options = lines.slice(lines.indexOf('Options:') + 1, lines.indexOf('', lines.indexOf('Options:')));
    const column = options[0]!.indexOf('Directory to publish');
    expect(column).toBeGreaterThan('  --out <dir>'.length);
    const label = /^ {2}(-h, --help|--[a-z-]+( <[^>]+>)?)$/;
    for (const line of options) {
      expect(line.length).toBeLessThanOrEqual(100);
      if (label.test(line)) continue; // a label too long for the column, alone on its line
      // Text starts at the column, after a label that fits (or after nothing, on a continued line).
      expect(line.slice(0, column).trimEnd() === '' || label.test(line.slice(0, column).trimEnd()), line).toBe(true);
      expect(line[column - 1], line).toBe(' ');
      expect(line[column], line).not.toBe(' ');
    }
    const index = options.findIndex((line) => line.startsWith('  --collection-index <complete|first-page>'));
    expect(options[index]).toBe('  --collection-index <complete|first-page>');
    expect(options[index + 1]!.indexOf('What the bare collection URL holds')).toBe(column);
  });
});
