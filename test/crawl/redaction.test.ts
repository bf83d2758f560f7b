/**
 * A password in a URL the user gave (--base-url, the root URL) is never repeated in an error message, wherever the
 * value is refused: by the command line's parser, or by createSnapshot itself.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawlCommand } from '../../src/cli/crawl-command.js';
import { UsageError } from '../../src/util/errors.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const SECRET = 's3cret';

function refusal(run: () => unknown): UsageError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('a URL with a password, refused', () => {
  it('--base-url with another scheme: the parser names the value without its password', () => {
    const error = refusal(() =>
      crawlCommand.prepare(['http://127.0.0.1:9/', '--base-url', `ftp://user:${SECRET}@cv.example.org/`], 'x'),
    );
    expect(error.message).toContain('ftp://***@cv.example.org/');
    expect(error.message).not.toContain(SECRET);
  });

  it('--base-url longer than the message shows: no part of the password is left by the cut', () => {
    const password = `${SECRET}${'x'.repeat(60)}`;
    const error = refusal(() =>
      crawlCommand.prepare(['http://127.0.0.1:9/', '--base-url', `ftp://user:${password}@cv.example.org/`], 'x'),
    );
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain('xxx');
  });

  it('createSnapshot: a --base-url that does not parse, its password holding a space', async () => {
    const error = await crawlForTest('http://127.0.0.1:9/api/', path.join(await tempDir(), 'out'), {
      links: 'absolute',
      // Unparsable for its host; the space would stop a redaction that reads URLs out of running text.
      baseUrl: `https://user:${SECRET} two@[cv.example.org/`,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('https://***@[cv.example.org/');
    expect((error as Error).message).not.toContain(SECRET);
    expect((error as Error).message).not.toContain('two');
  });

  it('createSnapshot: a root URL with a password that does not parse', async () => {
    const error = await crawlForTest(`http://user:${SECRET}@[bad/api/`, path.join(await tempDir(), 'out')).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).not.toContain(SECRET);
  });
});
