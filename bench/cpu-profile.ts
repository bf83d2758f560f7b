/**
 * A small reader of the .cpuprofile files `node --cpu-prof` writes (V8's sampling profiler: a tree of call frames and
 * the sample taken every interval): where the profiled crawl's CPU went, by function (self time: the samples in the
 * function itself; inclusive time: the samples with the function anywhere on the stack, counted once however often
 * it recurs) and by module. The command line is bundled (scripts/bundle-cli.mjs), so a frame's file is a chunk of
 * dist/; esbuild starts each module it bundles with a `// dist/<path>.js` or `// node_modules/<path>` comment, which
 * names the source module that a line of the chunk belongs to.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based; -1 for V8's own entries such as (program). */
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds between each sample and the one before it (the first: since startTime). */
  timeDeltas: number[];
}

export interface ProfileItem {
  /** The function's name, with its module (or `native`, `node:…`) in parentheses. */
  name: string;
  ms: number;
  /** Share of the sampled time the process was not idle, in percent. */
  percent: number;
  /** Microseconds per document of the profiled crawl. */
  perDocumentUs: number;
}

export interface ProfileSummary {
  /** .cpuprofile files read: one per thread (the main thread, and each worker thread when there are some). */
  threads: number;
  documents: number;
  /** Sampled time, idle excluded, in ms. */
  busyMs: number;
  idleMs: number;
  bySelf: ProfileItem[];
  byInclusive: ProfileItem[];
  /** Self time by source module (src/…, a package of node_modules, node:… or native). */
  byModule: ProfileItem[];
}

/** V8's entries that are not functions: time outside JavaScript, idle time, the tree's root. */
const IDLE = '(idle)';
const ROOT = '(root)';

/** Maps a line of a bundled chunk of dist/ to the module it came from, from esbuild's `// <path>` comments. */
class ModuleMap {
  readonly #files = new Map<string, Array<{ line: number; module: string }>>();

  moduleOf(frame: CallFrame): string {
    if (frame.url === '') return 'native';
    if (!frame.url.startsWith('file:')) return frame.url;
    const file = fileURLToPath(frame.url);
    const starts = this.#starts(file);
    let found: string | undefined;
    for (const start of starts) {
      if (start.line > frame.lineNumber) break;
      found = start.module;
    }
    return found ?? path.basename(file);
  }

  #starts(file: string): Array<{ line: number; module: string }> {
    let starts = this.#files.get(file);
    if (starts === undefined) {
      starts = [];
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        // A file gone since the profile was taken: its frames are named by the file alone.
      }
      for (const [line, content] of text.split('\n').entries()) {
        const match = /^\/\/ (dist\/\S+\.js|node_modules\/\S+)$/.exec(content);
        if (match !== null) starts.push({ line, module: sourceName(match[1]!) });
      }
      this.#files.set(file, starts);
    }
    return starts;
  }
}

/** `dist/pipeline/finalize.js` → `src/pipeline/finalize.ts`; `node_modules/undici/lib/x.js` → `undici`. */
function sourceName(bundled: string): string {
  if (bundled.startsWith('dist/')) return `src/${bundled.slice('dist/'.length).replace(/\.js$/, '.ts')}`;
  const parts = bundled.slice('node_modules/'.length).split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** Adds one profile's self and inclusive times (µs) into the totals, by function and by module. */
function addProfile(
  profile: CpuProfile,
  modules: ModuleMap,
  totals: { self: Map<string, number>; inclusive: Map<string, number>; module: Map<string, number>; idle: number },
): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // Each sample lasts until the next one; the last until the profile ends.
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  const stamps = profile.timeDeltas.map((delta) => (at += delta));
  for (const [i, id] of profile.samples.entries()) {
    const until = stamps[i + 1] ?? profile.endTime;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, until - stamps[i]!));
  }
  const keyOf = new Map<number, string>();
  const moduleOf = new Map<number, string>();
  for (const node of profile.nodes) {
    const { functionName, url } = node.callFrame;
    // V8's own entries, such as (program) and (garbage collector), are a module of their own.
    const special = functionName.startsWith('(') && url === '';
    const module = special ? functionName : modules.moduleOf(node.callFrame);
    keyOf.set(node.id, special ? functionName : `${functionName || '(anonymous)'} (${module})`);
    // Node's internals as one module: their files are not what a reader of the crawl can change.
    moduleOf.set(node.id, module.replace(/^node:internal\/.*/, 'node:internal'));
  }
  // Subtree totals, children before parents (the nodes are listed parents first, but not guaranteed: walk the tree).
  const order: number[] = [];
  const root = profile.nodes[0]!;
  const stack = [root.id];
  while (stack.length > 0) {
    const id = stack.pop()!;
    order.push(id);
    stack.push(...(byId.get(id)?.children ?? []));
  }
  const subtreeUs = new Map<number, number>();
  for (const id of order.toReversed()) {
    let sum = selfUs.get(id) ?? 0;
    for (const child of byId.get(id)?.children ?? []) sum += subtreeUs.get(child) ?? 0;
    subtreeUs.set(id, sum);
  }
  // Inclusive time: a function's outermost frames on each path, so that recursion is counted once.
  const onPath = new Map<string, number>();
  const walk: Array<{ id: number; leave: boolean }> = [{ id: root.id, leave: false }];
  while (walk.length > 0) {
    const { id, leave } = walk.pop()!;
    const key = keyOf.get(id)!;
    if (leave) {
      onPath.set(key, onPath.get(key)! - 1);
      continue;
    }
    if ((onPath.get(key) ?? 0) === 0 && key !== ROOT && key !== IDLE) {
      totals.inclusive.set(key, (totals.inclusive.get(key) ?? 0) + subtreeUs.get(id)!);
    }
    onPath.set(key, (onPath.get(key) ?? 0) + 1);
    walk.push({ id, leave: true });
    for (const child of byId.get(id)?.children ?? []) walk.push({ id: child, leave: false });
  }
  for (const [id, us] of selfUs) {
    const key = keyOf.get(id)!;
    if (key === IDLE) {
      totals.idle += us;
      continue;
    }
    totals.self.set(key, (totals.self.get(key) ?? 0) + us);
    const module = moduleOf.get(id)!;
    totals.module.set(module, (totals.module.get(module) ?? 0) + us);
  }
}

/** Summarises every .cpuprofile file in `dir` (one per thread of the profiled process). */
export function summariseProfiles(dir: string, documents: number, top: number): ProfileSummary {
  const files = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
  if (files.length === 0) throw new Error(`node --cpu-prof wrote no .cpuprofile file in ${dir}.`);
  const modules = new ModuleMap();
  const totals = { self: new Map<string, number>(), inclusive: new Map<string, number>(), module: new Map(), idle: 0 };
  for (const file of files) {
    addProfile(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile, modules, totals);
  }
  const busyUs = [...totals.self.values()].reduce((a, b) => a + b, 0);
  const items = (map: Map<string, number>): ProfileItem[] =>
    [...map]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, top)
      .map(([name, us]) => ({
        name,
        ms: Math.round(us / 100) / 10,
        percent: busyUs > 0 ? Math.round((us / busyUs) * 1000) / 10 : 0,
        perDocumentUs: Math.round((us / Math.max(documents, 1)) * 10) / 10,
      }));
  return {
    threads: files.length,
    documents,
    busyMs: Math.round(busyUs / 1000),
    idleMs: Math.round(totals.idle / 1000),
    bySelf: items(totals.self),
    byInclusive: items(totals.inclusive),
    byModule: items(totals.module as Map<string, number>),
  };
}
