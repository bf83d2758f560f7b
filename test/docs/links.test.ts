/**
 * Every link in README.md and docs/*.md resolves: a relative link to a file or directory of the repository, and a
 * `#fragment` to a heading of the Markdown page it names, as GitHub spells the heading's anchor. Links to other sites
 * are not fetched. Code blocks and code spans are not read for links, since they show text, not links.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The Markdown pages checked: the README and every page of docs/. */
async function pages(): Promise<string[]> {
  const docs = (await readdir(path.join(REPO, 'docs'))).filter((name) => name.endsWith('.md')).sort();
  return [path.join(REPO, 'README.md'), ...docs.map((name) => path.join(REPO, 'docs', name))];
}

/** The page's text outside fenced code blocks, each line kept in place (code lines blanked). */
function prose(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      return '';
    }
    return fence === undefined ? line : '';
  });
}

/** GitHub's anchor for a heading's text (github-slugger): lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link reads as its text
    .replace(/<[^>]+>/g, ''); // inline HTML is not part of the text
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page's headings give, with GitHub's `-1`, `-2` … for a repeated one. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

interface Link {
  line: number;
  target: string;
}

/** Every link target in a page: `[text](target)`, `![alt](target)`, and `src`/`href` of inline HTML. */
function links(markdown: string): Link[] {
  const lines = prose(markdown).map((line) => line.replace(/(`+)[^`]*?\1/g, '')); // code spans hold no links
  const found: Link[] = [];
  // Link text may run over lines, so the targets are read from the whole text, and their line counted back.
  const text = lines.join('\n');
  const patterns = [/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g, /\b(?:src|href)="([^"]+)"/g];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      found.push({ line: text.slice(0, match.index).split('\n').length, target: match[1]! });
    }
  }
  return found;
}

/** Why a link of `page` does not resolve, or undefined when it does. */
async function brokenBecause(page: string, target: string): Promise<string | undefined> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:: another site, not fetched here
  const hash = target.indexOf('#');
  const file = hash < 0 ? target : target.slice(0, hash);
  const fragment = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const resolved = file === '' ? page : path.resolve(path.dirname(page), decodeURIComponent(file));
  if (path.relative(REPO, resolved).startsWith('..')) return 'it leads out of the repository';
  const info = await stat(resolved).catch(() => undefined);
  if (info === undefined) return `there is no ${path.relative(REPO, resolved)}`;
  if (fragment === undefined) return undefined;
  if (!resolved.endsWith('.md') || !info.isFile()) return 'a #fragment is checked only on a Markdown page';
  if (anchors(await readFile(resolved, 'utf8')).has(fragment)) return undefined;
  return `${path.relative(REPO, resolved)} has no heading whose anchor is #${fragment}`;
}

describe('links in README.md and docs/', () => {
  it('spells anchors as GitHub does', () => {
    expect(slug('Reproducible archives: pack')).toBe('reproducible-archives-pack');
    expect(slug('`cv-snapshot serve [dir] [options]`')).toBe('cv-snapshot-serve-dir-options');
    expect(slug('How `crawl --derive` decides')).toBe('how-crawl---derive-decides');
    expect(slug('Order of work (`derive-run.ts`)')).toBe('order-of-work-derive-runts');
    expect(slug('Search: the [index](x.md) — loaded once')).toBe('search-the-index--loaded-once');
    expect([...anchors('# A\n```\n# Not a heading\n```\n## A\n### A b\n')]).toEqual(['a', 'a-1', 'a-b']);
  });

  it('reads links across lines and not inside code', () => {
    const page = 'See [the\nreport](#the-report) and `[not](a-link)`.\n```\n[nor](this)\n```\n<img src="x.png">';
    expect(links(page)).toEqual([
      { line: 2, target: '#the-report' },
      { line: 6, target: 'x.png' },
    ]);
  });

  it('every relative link resolves, to a file and to a heading in it', async () => {
    const broken: string[] = [];
    for (const page of await pages()) {
      const markdown = await readFile(page, 'utf8');
      for (const link of links(markdown)) {
        const because = await brokenBecause(page, link.target);
        if (because === undefined) continue;
        broken.push(`${path.relative(REPO, page)}:${link.line} (${link.target}): ${because}`);
      }
    }
    expect(broken, `Links that do not resolve:\n${broken.join('\n')}`).toEqual([]);
  });
});
