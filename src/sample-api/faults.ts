/**
 * Deterministic faults and latency. Each request is keyed by its canonical URL without `format` (so a retry of the
 * same document counts as the next attempt however it is spelled) and the number of earlier requests for that key;
 * a hash of (seed, key, attempt) decides whether it fails and how. After three faults in a row a URL always
 * answers, so a client with four or more attempts gets every document.
 */
import { hash32, unitHash } from './hash.js';
import { FORMAT, PAGE_NUMBER } from './list-query.js';
import { byCodeUnits } from '../util/code-unit-order.js';

export type FaultKind = 500 | 503 | 429 | 'reset' | 'stall' | 'truncated' | 'corrupt-gzip';

const ALL_KINDS: readonly FaultKind[] = [500, 503, 429, 'reset', 'stall', 'truncated', 'corrupt-gzip'];
const WITHOUT_GZIP: readonly FaultKind[] = ALL_KINDS.filter((kind) => kind !== 'corrupt-gzip');

export const MAX_CONSECUTIVE_FAULTS = 3;

/**
 * Path plus sorted query without `format`, `page[number]` decoded and dropped when 1
 * (docs/architecture.md#crawling-rules).
 */
export function faultKey(path: string, rawQuery: string): string {
  if (rawQuery === '') return path;
  const params: Array<[string, string]> = [];
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    if (key === FORMAT) continue;
    if (key === PAGE_NUMBER && /^\d+$/.test(value) && Number.parseInt(value, 10) === 1) continue;
    params.push([key, key === PAGE_NUMBER && /^\d+$/.test(value) ? String(Number.parseInt(value, 10)) : value]);
  }
  if (params.length === 0) return path;
  params.sort(([ka, va], [kb, vb]) => byCodeUnits(ka, kb) || byCodeUnits(va, vb));
  return `${path}?${params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
}

interface History {
  attempts: number;
  streak: number;
}

export class FaultPlan {
  private readonly history = new Map<string, History>();

  constructor(
    private readonly seed: number,
    private readonly rate: number,
  ) {}

  /** The fault for the next request of `key`, or null to answer normally. Counts the attempt. */
  next(key: string, acceptsGzip: boolean): FaultKind | null {
    if (this.rate <= 0) return null;
    let history = this.history.get(key);
    if (history === undefined) {
      history = { attempts: 0, streak: 0 };
      this.history.set(key, history);
    }
    const attempt = history.attempts;
    history.attempts += 1;
    if (history.streak >= MAX_CONSECUTIVE_FAULTS || unitHash(this.seed, key, attempt, 'fault') >= this.rate) {
      history.streak = 0;
      return null;
    }
    history.streak += 1;
    const kinds = acceptsGzip ? ALL_KINDS : WITHOUT_GZIP;
    return kinds[hash32(`${this.seed}\u0000${key}\u0000${attempt}\u0000kind`) % kinds.length] ?? 500;
  }
}

/** Extra delay for `key` in [0, jitterMs), the same on every request of that URL. */
export function jitterFor(seed: number, key: string, jitterMs: number): number {
  return jitterMs <= 0 ? 0 : Math.floor(unitHash(seed, key, 'latency') * jitterMs);
}
