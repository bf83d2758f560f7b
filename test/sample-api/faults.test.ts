import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { FaultPlan, MAX_CONSECUTIVE_FAULTS, faultKey } from '../../src/sample-api/faults.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { eachLimited, withoutFormat } from './http.js';
import { JSON_API } from './spec-expectations.js';

const KINDS = [500, 503, 429, 'reset', 'stall', 'truncated', 'corrupt-gzip'];

describe('FaultPlan', () => {
  it('decides the same faults for the same seed, URL and attempt', () => {
    const run = (seed: number): Array<string | number | null> => {
      const plan = new FaultPlan(seed, 0.5);
      return Array.from({ length: 200 }, (_, i) => plan.next(`/u/${i % 20}/`, true));
    };
    expect(run(1)).toEqual(run(1));
    expect(run(1)).not.toEqual(run(2));
  });

  it('never faults more than three times in a row, even at rate 1', () => {
    const plan = new FaultPlan(1, 1);
    const outcomes = Array.from({ length: 8 }, () => plan.next('/x/', false));
    expect(outcomes.map((o) => o === null)).toEqual([false, false, false, true, false, false, false, true]);
    expect(outcomes).not.toContain('corrupt-gzip');
    expect(MAX_CONSECUTIVE_FAULTS).toBe(3);
    expect(new FaultPlan(1, 0).next('/x/', true)).toBeNull();
  });

  it('keys a URL by its canonical form without format', () => {
    expect(faultKey('/a/', 'format=api&page%5Bnumber%5D=2')).toBe(faultKey('/a/', 'page[number]=02'));
    expect(faultKey('/a/', 'format=api&page%5Bnumber%5D=1')).toBe('/a/');
  });
});

type Outcome = number | string;

/**
 * Asks each URL until it answers 200 (at most `attempts` times); returns what the client saw per URL, and the
 * Retry-After of each 429 in `retryAfter` (checked by the caller: an assertion in here would be caught below as a
 * network error).
 */
async function crawlWithRetries(
  api: SampleApi,
  urls: string[],
  attempts: number,
  retryAfter: Array<string | string[] | undefined> = [],
): Promise<Map<string, Outcome[]>> {
  const agent = new Agent({ connections: 8 });
  const seen = new Map<string, Outcome[]>();
  await eachLimited(urls, 8, async (url) => {
    const outcomes: Outcome[] = [];
    seen.set(url, outcomes);
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      try {
        const response = await request(url, {
          headers: { accept: JSON_API, 'accept-encoding': 'gzip' },
          dispatcher: agent,
          reset: true,
        });
        const body = Buffer.from(await response.body.arrayBuffer());
        if (response.statusCode === 429) retryAfter.push(response.headers['retry-after']);
        if (response.statusCode === 200 && response.headers['content-encoding'] === 'gzip') {
          try {
            JSON.parse(gunzipSync(body).toString('utf8'));
          } catch {
            outcomes.push('bad body');
            continue;
          }
        }
        outcomes.push(response.statusCode);
        if (response.statusCode === 200) break;
      } catch {
        outcomes.push('network error');
      }
    }
  });
  await agent.close();
  return seen;
}

function logByUrl(api: SampleApi): Map<string, Outcome[]> {
  const byUrl = new Map<string, Outcome[]>();
  for (const entry of api.requestLog) byUrl.set(entry.url, [...(byUrl.get(entry.url) ?? []), entry.status]);
  return byUrl;
}

describe('faults on the wire', () => {
  const servers: SampleApi[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  const start = async (seed: number): Promise<SampleApi> => {
    const api = await startSampleApi({ seed, faultRate: 0.6, stallMs: 20, retryAfterSeconds: 2, records: 3 });
    servers.push(api);
    return api;
  };

  it('are deterministic, bounded, of every kind, and a client with four attempts gets every document', async () => {
    const first = await start(11);
    const urls = first.documentUrls().slice(0, 60).map(withoutFormat);
    const retryAfter: Array<string | string[] | undefined> = [];
    const client = await crawlWithRetries(first, urls, 4, retryAfter);
    expect(retryAfter.length).toBeGreaterThan(0);
    expect(new Set(retryAfter)).toEqual(new Set(['2']));
    for (const [url, outcomes] of client) {
      expect(outcomes.at(-1), url).toBe(200);
      expect(outcomes.length).toBeLessThanOrEqual(MAX_CONSECUTIVE_FAULTS + 1);
    }
    const log = logByUrl(first);
    const kinds = new Set([...log.values()].flat());
    for (const kind of KINDS) expect(kinds, String(kind)).toContain(kind);

    const second = await start(11);
    const secondUrls = urls.map((url) => url.replace(first.rootUrl, second.rootUrl));
    await crawlWithRetries(second, secondUrls, 4);
    expect(logByUrl(second)).toEqual(log);

    const other = await start(12);
    await crawlWithRetries(
      other,
      urls.map((url) => url.replace(first.rootUrl, other.rootUrl)),
      4,
    );
    expect(logByUrl(other)).not.toEqual(log);
  });

  it('apply to the root index too', async () => {
    const api = await startSampleApi({ seed: 1, faultRate: 1, stallMs: 10 });
    servers.push(api);
    const outcomes = (await crawlWithRetries(api, [api.rootUrl], 4)).get(api.rootUrl);
    expect(outcomes).toHaveLength(4);
    expect(outcomes?.at(-1)).toBe(200);
  });
});

describe('latency', () => {
  it('delays each answer by latencyMs plus a per-URL jitter', async () => {
    const api = await startSampleApi({ latencyMs: 40, latencyJitterMs: 20 });
    try {
      const began = performance.now();
      const response = await request(api.rootUrl, { headers: { accept: JSON_API } });
      await response.body.arrayBuffer();
      const elapsed = performance.now() - began;
      expect(response.statusCode).toBe(200);
      expect(elapsed).toBeGreaterThanOrEqual(39);
      expect(elapsed).toBeLessThan(1000);
    } finally {
      await api.close();
    }
  });
});
