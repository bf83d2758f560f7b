/**
 * The only module that reads the wall clock, so that SOURCE_DATE_EPOCH (reproducible builds) governs every time
 * that reaches a snapshot. Durations for progress and retries use `monotonicMs`, which never reaches a snapshot.
 */
import { UsageError } from './errors.js';

/**
 * The latest SOURCE_DATE_EPOCH accepted: the largest mtime a ustar header holds (eleven octal digits), which `pack`
 * writes as every mtime. A Date holds far more (8.64e12 s), so this bound serves both.
 */
const MAX_SOURCE_DATE_EPOCH = 8_589_934_591;

export interface Clock {
  /** The time recorded in a snapshot: SOURCE_DATE_EPOCH when set, else the moment the clock was made. */
  readonly recordedTime: Date;
  monotonicMs(): number;
  /** The real time now, whatever SOURCE_DATE_EPOCH says: for what never reaches a snapshot, such as a lock. */
  now(): Date;
}

/** Checks SOURCE_DATE_EPOCH at start-up, so that a value no snapshot or archive can hold stops before any work. */
function sourceDateEpoch(epoch: string): Date {
  const hint = `a whole number of seconds since 1970 from 0 to ${MAX_SOURCE_DATE_EPOCH} (the year 2242)`;
  if (!/^\d+$/.test(epoch)) {
    throw new UsageError(`SOURCE_DATE_EPOCH must be ${hint}, not "${epoch.slice(0, 40)}".`);
  }
  const seconds = Number(epoch);
  if (seconds > MAX_SOURCE_DATE_EPOCH) {
    throw new UsageError(
      `SOURCE_DATE_EPOCH=${epoch.slice(0, 40)} is too late: it must be ${hint}, the latest time an archive made by ` +
        'pack can record. Unset it, or set it to the time of the release (date +%s).',
    );
  }
  return new Date(seconds * 1000);
}

export function createClock(env: NodeJS.ProcessEnv = process.env): Clock {
  const epoch = env.SOURCE_DATE_EPOCH;
  const recordedTime =
    epoch !== undefined && epoch !== '' ? sourceDateEpoch(epoch) : new Date(Math.floor(Date.now() / 1000) * 1000);
  return { recordedTime, monotonicMs: () => performance.now(), now: () => new Date() };
}
