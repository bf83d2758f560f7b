/** How hints name the program: as the user started it (invocation.ts). */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { invocationOf, shellWord } from '../../src/cli/invocation.js';

const PATH = ['/usr/local/bin', '/usr/bin'].join(path.delimiter);

describe('invocationOf', () => {
  it('names the bin when it was found on the PATH (npm install -g)', () => {
    expect(invocationOf('/usr/local/bin/cv-snapshot', { PATH }, '/home/me')).toEqual({
      program: 'cv-snapshot',
      directory: '/home/me',
    });
  });

  it('uses npx for a project-local bin, and the path for a bin outside the PATH', () => {
    const local = '/home/me/project/node_modules/.bin/cv-snapshot';
    expect(invocationOf(local, { PATH }, '/home/me/project').program).toBe('npx cv-snapshot');
    expect(invocationOf('/home/me/tools/cv-snapshot', { PATH }, '/home/me').program).toBe('tools/cv-snapshot');
    expect(invocationOf('/home/me/cv-snapshot', { PATH }, '/home/me').program).toBe('./cv-snapshot');
  });

  it('says node and the script path, relative to where it was typed, when run as node dist/cli.js', () => {
    expect(invocationOf('/home/me/cv/dist/cli.js', { PATH }, '/home/me/cv').program).toBe('node dist/cli.js');
    expect(invocationOf('/home/me/cv/dist/cli.js', { PATH }, '/home/me/other').program).toBe('node ../cv/dist/cli.js');
    expect(invocationOf('/opt/cv/dist/cli.js', { PATH }, '/home/me/a/b').program).toBe('node /opt/cv/dist/cli.js');
    expect(invocationOf('/home/me/my cv/dist/cli.js', { PATH }, '/home/me').program).toBe("node 'my cv/dist/cli.js'");
  });

  it('under npm start, takes paths from the directory npm was typed in (INIT_CWD)', () => {
    const env = { PATH, npm_lifecycle_event: 'start', INIT_CWD: '/home/me/cv/docs' };
    expect(invocationOf('/home/me/cv/dist/cli.js', env, '/home/me/cv')).toEqual({
      program: 'node ../dist/cli.js',
      directory: '/home/me/cv/docs',
    });
    // Another npm script's INIT_CWD says nothing about this process's directory.
    const other = { PATH, npm_lifecycle_event: 'test', INIT_CWD: '/elsewhere' };
    expect(invocationOf('/home/me/cv/dist/cli.js', other, '/home/me/cv').directory).toBe('/home/me/cv');
  });

  it('quotes a word for the shell only when it needs it', () => {
    expect(shellWord('out')).toBe('out');
    expect(shellWord("it's here")).toBe(`'it'\\''s here'`);
  });
});
