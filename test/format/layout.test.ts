import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Layout } from '../../src/format/layout.js';
import { canonicalUrl } from '../../src/url/canonical-url.js';

const root = 'http://127.0.0.1:8080/sms/cv/api/v1/';
const layout = new Layout(root);

function placed(url: string): { file: string; servedPath: string } {
  const p = layout.place(url);
  if (!p.ok) throw new Error(`refused ${url}: ${p.reason}`);
  return { file: p.file, servedPath: p.servedPath };
}

describe('Layout (docs/snapshot-format.md#file-tree)', () => {
  it('stores slash URLs as index.html, slash-less ones as extensionless files, pages under page/<n>/', () => {
    expect(placed(root)).toEqual({ file: 'sms/cv/api/v1/index.html', servedPath: '/sms/cv/api/v1/' });
    expect(placed(`${root}units/3/`)).toEqual({
      file: 'sms/cv/api/v1/units/3/index.html',
      servedPath: '/sms/cv/api/v1/units/3/',
    });
    expect(placed(`${root}units/3/relationships/root?format=api`)).toEqual({
      file: 'sms/cv/api/v1/units/3/relationships/root',
      servedPath: '/sms/cv/api/v1/units/3/relationships/root',
    });
    expect(placed(`${root}units/?format=api`).file).toBe('sms/cv/api/v1/units/page/1/index.html');
    expect(placed(`${root}units/?page%5Bnumber%5D=4&format=api`)).toEqual({
      file: 'sms/cv/api/v1/units/page/4/index.html',
      servedPath: '/sms/cv/api/v1/units/page/4/',
    });
    expect(layout.collectionIndex('units')).toEqual({
      file: 'sms/cv/api/v1/units/index.html',
      servedPath: '/sms/cv/api/v1/units/',
    });
  });

  it('works for any root path', () => {
    const older = new Layout('http://h/cv/api/v1/');
    expect(older.place('http://h/cv/api/v1/units/?page[number]=2')).toMatchObject({
      ok: true,
      file: 'cv/api/v1/units/page/2/index.html',
    });
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

  it('refuses each character and ending that Windows cannot store in a file name, saying why', () => {
    const character = 'a path segment contains a character Windows cannot store in a file name';
    const ending = 'a path segment ends in a dot or a space, which Windows cannot store';
    for (const [segment, reason] of [
      ['a%3Cb', character],
      ['a%3Eb', character],
      ['a%3Ab', character],
      ['a%22b', character],
      ['a%7Cb', character],
      ['a%3Fb', character],
      ['a*b', character],
      ['a.', ending],
      ['a%20', ending],
    ]) {
      expect(layout.place(`${root}units/${segment}/`), segment).toEqual({ ok: false, reason });
    }
  });

  it('stores only canonical page numbers as pages; any other page[number] is refused, never put on a page', () => {
    const page1 = placed(`${root}units/`).file;
    for (const value of ['1.0', '+2', '0', '01', '02', '-1', '1e0', '2.5', 'last', '', '%202']) {
      const url = `${root}units/?page[number]=${value}`;
      const placement = layout.place(url);
      expect(placement.ok, value).toBe(false);
      expect(!placement.ok && placement.reason, value).toMatch(/is not a page number/);
    }
    for (const twice of ['page[number]=1&page[number]=2', 'page[number]=2&page%5Bnumber%5D=2']) {
      const placement = layout.place(`${root}units/?${twice}`);
      expect(placement.ok, twice).toBe(false);
      expect(!placement.ok && placement.reason, twice).toMatch(/page\[number\] more than once/);
    }
    expect(placed(`${root}units/?page[number]=1`).file).toBe(page1);
    expect(placed(`${root}units/?page[number]=12`).file).toBe('sms/cv/api/v1/units/page/12/index.html');
  });

  it('stores the pages of a related list under page/<n>/, page 1 at the related address itself', () => {
    const related = `${root}actioncategories/1/action_types/`;
    expect(placed(related).file).toBe('sms/cv/api/v1/actioncategories/1/action_types/index.html');
    expect(placed(`${related}?page[number]=1&format=api`).file).toBe(placed(related).file);
    expect(placed(`${related}?page%5Bnumber%5D=2&format=api`)).toEqual({
      file: 'sms/cv/api/v1/actioncategories/1/action_types/page/2/index.html',
      servedPath: '/sms/cv/api/v1/actioncategories/1/action_types/page/2/',
    });
    expect(layout.pageOf(related, 3)).toEqual({
      url: `${related}?page[number]=3`,
      file: 'sms/cv/api/v1/actioncategories/1/action_types/page/3/index.html',
    });
    // Without the trailing slash the related address is a file, so its pages have nowhere to go.
    expect(layout.place(`${root}actioncategories/1/action_types?page[number]=2`).ok).toBe(false);
    // Records and relationships take no page.
    expect(layout.place(`${root}actioncategories/1/?page[number]=2`).ok).toBe(false);
    expect(layout.place(`${root}actioncategories/1/relationships/action_types?page[number]=2`).ok).toBe(false);
    for (const value of ['0', '02', '1.0']) {
      expect(layout.place(`${related}?page[number]=${value}`).ok, value).toBe(false);
    }
  });

  it('maps files back to the URLs they answer', () => {
    for (const url of [
      root,
      `${root}units/3/`,
      `${root}units/3/relationships/root`,
      `${root}units/?page[number]=4`,
      `${root}units/`,
      `${root}units/3/children/?page[number]=2`,
      `${root}units/3/children/`,
      `${root}units/a!b'(c)/`,
      `${root}units/%C3%A9%5B/`,
    ]) {
      const { file, servedPath } = placed(url);
      expect(layout.servedPathOfFile(file)).toBe(servedPath);
      expect(layout.fileOfServedPath(servedPath)).toBe(file);
      expect(layout.sourceUrlOfServedPath(servedPath)).toBe(canonicalUrl(url));
    }
    // The bare collection URL in its canonical spelling, whatever characters the name holds.
    for (const name of ['units', 'a:b', "it's", 'x[1]', 'é']) {
      expect(layout.collectionUrl(name), name).toBe(canonicalUrl(`${root}${name}/`));
    }
    expect(layout.isCollectionIndexFile('sms/cv/api/v1/units/index.html')).toBe(true);
    expect(layout.isCollectionIndexFile('sms/cv/api/v1/units/page/1/index.html')).toBe(false);
  });

  it('never places a file outside the tree, and never two URLs on one file', () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('..', '.', '%2e%2e', '%2E.', 'a%2Fb', '%5C', 'page', '%70age', 'index.html', 'NUL'),
      fc.constantFrom('é', '%C3%A9', '%c3%a9', '%', '%zz'),
      // Spellings a decoder folds into one name: each pair must give one URL, or one of them no file.
      fc.constantFrom('A', '%41', '~', '%7E', '%7e', '!', '%21', ':', '%3A', '[', '%5B', '%5b'),
      fc.constantFrom('+', '%2B', ' ', '%20', "'", '%27'),
    );
    const query = fc.constantFrom(
      '',
      ...['1', '2', '3', '02', '2.0', '+2', '%2B2', '0', '-1', '2e0', ' 2', 'last'].map((n) => `?page[number]=${n}`),
      '?page%5bnumber%5d=2',
      '?page[number]=2&page[number]=2',
      '?page[number]=2&format=api',
      '?format=api',
      '?sort=term',
    );
    const files = new Map<string, string>();
    fc.assert(
      fc.property(fc.array(segment, { minLength: 0, maxLength: 4 }), fc.boolean(), query, (segments, slash, search) => {
        let url: string;
        try {
          const path = segments.map((s) => s.replace(/[?#]/g, '')).join('/');
          url = canonicalUrl(`${root}${path}${slash ? '/' : ''}${search}`);
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
      { numRuns: 4000 },
    );
  });
});
