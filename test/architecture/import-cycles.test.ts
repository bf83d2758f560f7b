/**
 * No module of src/ imports, through any chain, one that imports it back, type-only imports included
 * (docs/architecture.md#the-folders-and-what-each-owns: arrows point one way). A type shared by two modules lives
 * below both, as crawl/crawl-types.ts does for the crawler and its response handler.
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
