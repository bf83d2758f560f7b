/**
 * Arrows point one way (docs/architecture.md#the-folders-and-their-ranks): each folder of src/ has a rank, and a
 * module imports only modules of its own folder or of a folder of lower rank, type-only imports included; within a
 * folder, no module imports, through any chain, one that imports it back. A type shared by two modules lives below
 * both, as crawl/crawl-types.ts does for the crawler and its response handler.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** Every module of src/ → the modules of src/ it imports or re-exports from (relative specifiers only). */
async function importGraph(): Promise<Map<string, string[]>> {
  const files = (await readdir(SRC, { recursive: true })).filter((file) => file.endsWith('.ts')).sort();
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = await readFile(path.join(SRC, file), 'utf8');
    const { importedFiles } = ts.preProcessFile(text, true, false);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => path.join(path.dirname(file), specifier).replace(/\.js$/, '.ts'));
    graph.set(
      file,
      [...new Set(targets)].filter((target) => files.includes(target)),
    );
  }
  return graph;
}

/** The strongly connected components with more than one module (Tarjan), each sorted: the import cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (module: string): void => {
    index.set(module, index.size);
    low.set(module, index.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const target of graph.get(module) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(module, Math.min(low.get(module)!, index.get(target)!));
      }
    }
    if (low.get(module) !== index.get(module)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    if (component.length > 1) found.push(component.sort());
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return found;
}

/**
 * The folders of src/ from the bottom up, as docs/architecture.md draws them: a folder may import the folders of
 * the lines above its own. The modules at the top of src/ count as folders of their own name.
 */
const RANKS: readonly (readonly string[])[] = [
  ['util', 'json', 'version.ts'],
  ['url'],
  ['jsonapi', 'validate', 'capture'],
  ['store', 'crawl', 'sample-api'],
  ['format'],
  ['archive', 'derive'],
  ['export', 'diff'],
  ['catalogue'],
  ['pipeline', 'verify', 'serve'],
  ['cli'],
  ['index.ts', 'cli.ts'],
];

function folderOf(module: string): string {
  return module.split(path.sep)[0]!;
}

function rankOf(folder: string): number {
  return RANKS.findIndex((rank) => rank.includes(folder));
}

/** Every import from one folder into another whose rank is not lower, as `from → to (a.ts imports b.ts)`. */
function upwardImports(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [module, targets] of graph) {
    const from = folderOf(module);
    for (const target of targets) {
      const to = folderOf(target);
      if (to !== from && rankOf(to) >= rankOf(from)) found.push(`${from} → ${to} (${module} imports ${target})`);
    }
  }
  return found.sort();
}

describe('imports in src/', () => {
  it('finds a cycle, type-only imports included', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    const { importedFiles } = ts.preProcessFile("import type { A } from './a.js';\nexport type { B } from './b.js';");
    expect(importedFiles.map((file) => file.fileName)).toEqual(['./a.js', './b.js']);
  });

  it('finds an import of a folder of the same or a higher rank', () => {
    const graph = new Map([
      [path.join('format', 'a.ts'), [path.join('url', 'b.ts'), path.join('format', 'c.ts')]],
      [path.join('store', 'd.ts'), [path.join('format', 'a.ts'), path.join('crawl', 'e.ts')]],
    ]);
    expect(upwardImports(graph)).toEqual([
      `store → crawl (${path.join('store', 'd.ts')} imports ${path.join('crawl', 'e.ts')})`,
      `store → format (${path.join('store', 'd.ts')} imports ${path.join('format', 'a.ts')})`,
    ]);
  });

  it('rank every folder and top-level module of src/', async () => {
    const unranked = [...new Set([...(await importGraph()).keys()].map(folderOf))].filter(
      (folder) => rankOf(folder) < 0,
    );
    expect(unranked, 'Give each new folder of src/ its rank in RANKS and in docs/architecture.md').toEqual([]);
  });

  it('import only folders of a lower rank', async () => {
    const found = upwardImports(await importGraph());
    expect(
      found,
      `Imports that point up, or across to a folder of the same rank:\n${found.join('\n')}\n` +
        'Move what they share into a folder below both (docs/architecture.md#the-folders-and-their-ranks).',
    ).toEqual([]);
  });

  it('have no cycle', async () => {
    const found = cycles(await importGraph());
    const listed = found.map((cycle) => cycle.join(' ↔ ')).join('\n');
    expect(
      found,
      `Modules that import each other (through type-only imports too):\n${listed}\n` +
        'Move what they share into a module below both.',
    ).toEqual([]);
  });
});
