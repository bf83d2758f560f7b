/**
 * The only module that reads the wall clock, so that SOURCE_DATE_EPOCH (reproducible builds) governs every time
 * that reaches a snapshot. Durations for progress and retries use `monotonicMs`, which never reaches a snapshot.
 */
import { UsageError } from './errors.js';

export interface Clock {
  /** The time recorded in a snapshot: SOURCE_DATE_EPOCH when set, else the moment the clock was made. */
  readonly recordedTime: Date;
  monotonicMs(): number;
}

export function createClock(env: NodeJS.ProcessEnv = process.env): Clock {
  const epoch = env.SOURCE_DATE_EPOCH;
  let recordedTime: Date;
  if (epoch !== undefined && epoch !== '') {
    if (!/^\d+$/.test(epoch)) {
      throw new UsageError(`SOURCE_DATE_EPOCH must be a whole number of seconds since 1970, not "${epoch}".`);
    }
    recordedTime = new Date(Number(epoch) * 1000);
  } else {
    recordedTime = new Date(Math.floor(Date.now() / 1000) * 1000);
  }
  return { recordedTime, monotonicMs: () => performance.now() };
}
