import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Layout } from '../../src/snapshot/layout.js';
import { canonicalUrl } from '../../src/url/canonical-url.js';

const root = 'http://127.0.0.1:8080/sms/cv/api/v1/';
const layout = new Layout(root);

function placed(url: string): { file: string; servedPath: string } {
  const p = layout.place(url);
  if (!p.ok) throw new Error(`refused ${url}: ${p.reason}`);
  return { file: p.file, servedPath: p.servedPath };
}

describe('Layout (DESIGN.md §6 file layout)', () => {
  it('stores slash URLs as index.html, slash-less ones as extensionless files, pages under page/<n>/', () => {
    expect(placed(root)).toEqual({ file: 'sms/cv/api/v1/index.html', servedPath: '/sms/cv/api/v1/' });
    expect(placed(`${root}units/3/`)).toEqual({ file: 'sms/cv/api/v1/units/3/index.html', servedPath: '/sms/cv/api/v1/units/3/' });
    expect(placed(`${root}units/3/relationships/root?format=api`)).toEqual({
      file: 'sms/cv/api/v1/units/3/relationships/root',
      servedPath: '/sms/cv/api/v1/units/3/relationships/root',
    });
    expect(placed(`${root}units/?format=api`).file).toBe('sms/cv/api/v1/units/page/1/index.html');
    expect(placed(`${root}units/?page%5Bnumber%5D=4&format=api`)).toEqual({
      file: 'sms/cv/api/v1/units/page/4/index.html',
      servedPath: '/sms/cv/api/v1/units/page/4/',
    });
    expect(layout.collectionIndex('units')).toEqual({ file: 'sms/cv/api/v1/units/index.html', servedPath: '/sms/cv/api/v1/units/' });
  });

  it('works for any root path', () => {
    const older = new Layout('http://h/cv/api/v1/');
    expect(older.place('http://h/cv/api/v1/units/?page[number]=2')).toMatchObject({ ok: true, file: 'cv/api/v1/units/page/2/index.html' });
  });

  it('refuses hostile segments, reserved names and other queries', () => {
    for (const bad of [
      `${root}units/%2F/`,
      `${root}units/a%5Cb/`,
      `${root}units/%00/`,
      `${root}units/CON/`,
      `${root}units/lpt1.txt/`,
      `${root}units/page/`,
      `${root}units/index.html`,
      `${root}units/${'x'.repeat(300)}/`,
      `${root}units/?sort=term`,
      `${root}units/1/?x=1`,
      'http://127.0.0.1:8080/elsewhere/',
    ]) {
      expect(layout.place(bad).ok, bad).toBe(false);
    }
  });

  it('maps files back to the URLs they answer', () => {
    for (const url of [root, `${root}units/3/`, `${root}units/3/relationships/root`, `${root}units/?page[number]=4`, `${root}units/`]) {
      const { file, servedPath } = placed(url);
      expect(layout.servedPathOfFile(file)).toBe(servedPath);
      expect(layout.fileOfServedPath(servedPath)).toBe(file);
      expect(layout.sourceUrlOfServedPath(servedPath)).toBe(canonicalUrl(url));
    }
    expect(layout.isCollectionIndexFile('sms/cv/api/v1/units/index.html')).toBe(true);
    expect(layout.isCollectionIndexFile('sms/cv/api/v1/units/page/1/index.html')).toBe(false);
  });

  it('never places a file outside the tree, and never two URLs on one file', () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('..', '.', '%2e%2e', '%2E.', 'a%2Fb', '%5C', 'page', 'index.html', 'NUL', 'é', '%C3%A9', '%', '%zz'),
    );
    const files = new Map<string, string>();
    fc.assert(
      fc.property(fc.array(segment, { minLength: 0, maxLength: 4 }), fc.boolean(), fc.option(fc.integer({ min: 1, max: 50 })), (segments, slash, page) => {
        let url: string;
        try {
          url = canonicalUrl(`${root}${segments.map((s) => s.replace(/[?#]/g, '')).join('/')}${slash ? '/' : ''}${page ? `?page[number]=${page}` : ''}`);
        } catch {
          return;
        }
        const p = layout.place(url);
        if (!p.ok) return;
        const parts = p.file.split('/');
        expect(parts).not.toContain('..');
        expect(parts).not.toContain('.');
        expect(parts).not.toContain('');
        expect(p.file.startsWith('sms/cv/api/v1/')).toBe(true);
        const other = files.get(p.file);
        if (other !== undefined) expect(other).toBe(url);
        files.set(p.file, url);
      }),
      { numRuns: 2000 },
    );
  });
});
