/**
 * Spaces requests at most `ratePerSecond` apart; every attempt, retries included, takes a slot
 * (docs/architecture.md#crawling-rules).
 */
import { setTimeout as sleep } from 'node:timers/promises';

export class RateLimiter {
  private nextSlot = 0;
  private readonly intervalMs: number;

  constructor(ratePerSecond: number) {
    this.intervalMs = 1000 / ratePerSecond;
  }

  async take(signal?: AbortSignal): Promise<void> {
    const now = performance.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + this.intervalMs;
    if (slot > now) await sleep(slot - now, undefined, { signal });
  }
}
