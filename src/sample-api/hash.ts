/**
 * Deterministic numbers for the sample API: a string hash and a seeded generator. Everything the sample API varies
 * (data, fault decisions, latency jitter) comes from here, so the same seed gives the same service byte for byte.
 */

/** FNV-1a over the UTF-16 code units of `text`, finished with a murmur3 mix so nearby inputs spread well. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A number in [0, 1) decided by `parts` alone. */
export function unitHash(...parts: Array<string | number>): number {
  return hash32(parts.join('\u0000')) / 0x1_0000_0000;
}

export interface Random {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [0, bound). */
  int(bound: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** mulberry32, seeded from `seed` and a label so each collection gets its own independent stream. */
export function createRandom(seed: number, label: string): Random {
  let state = hash32(`${seed}\u0000${label}`);
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
  const int = (bound: number): number => Math.floor(next() * bound);
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      const item = items[int(items.length)];
      if (item === undefined) throw new RangeError('pick() needs a non-empty list');
      return item;
    },
  };
}
