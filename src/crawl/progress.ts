/**
 * Progress for long crawls: a live line on a terminal (rewritten in place), or a plain line every few seconds in
 * logs, or nothing with --quiet. Reads counters through a callback; never touches the crawl itself.
 */
import { plural } from '../util/plural.js';

export interface ProgressState {
  done: number;
  discovered: number;
  requests: number;
  retries: number;
  errors: number;
  /** With `crawl --derive`: documents derived rather than fetched so far. */
  derived?: number;
}

export type ProgressMode = 'tty' | 'lines' | 'off';

export function progressMode(stream: { isTTY?: boolean }, quiet: boolean): ProgressMode {
  if (quiet) return 'off';
  return stream.isTTY ? 'tty' : 'lines';
}

export function formatProgress(state: ProgressState, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (state.requests * 1000) / elapsedMs : 0;
  return (
    `${state.done}/${state.discovered} documents` +
    `${state.derived !== undefined ? ` (${state.derived} derived, ${state.requests} requests)` : ''}, ` +
    `${rate.toFixed(0)} req/s, ` +
    `${plural(state.retries, 'retry', 'retries')}, ${plural(state.errors, 'error')}`
  );
}

export class ProgressLine {
  private timer: NodeJS.Timeout | undefined;
  private readonly startedMs = performance.now();

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly mode: ProgressMode,
    private readonly read: () => ProgressState,
    intervalMs = mode === 'tty' ? 200 : 5000,
  ) {
    if (mode === 'off') return;
    this.timer = setInterval(() => this.draw(), intervalMs);
    this.timer.unref();
  }

  private draw(): void {
    const text = `crawl: ${formatProgress(this.read(), performance.now() - this.startedMs)}`;
    if (this.mode === 'tty') this.stream.write(`\r\u001b[K${text}`);
    else this.stream.write(`${text}\n`);
  }

  /** Stops drawing and clears the live line. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.mode === 'tty') this.stream.write('\r\u001b[K');
  }
}

/**
 * Where a run is in work that holds the event loop (finalize: the report, the catalogue, SHA256SUMS), which the
 * interval of ProgressLine cannot draw: a line for each stage, written as it starts, so that a log never ends on a
 * crawl line for the seconds that finalize takes at 200,000 documents.
 */
export class StageLine {
  #shown = false;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly mode: ProgressMode,
  ) {}

  show(text: string): void {
    if (this.mode === 'off') return;
    this.#shown = true;
    this.stream.write(this.mode === 'tty' ? `\r\u001b[K${text}` : `${text}\n`);
  }

  /** Clears the live line on a terminal; the lines in a log stay. */
  stop(): void {
    if (this.mode === 'tty' && this.#shown) this.stream.write('\r\u001b[K');
    this.#shown = false;
  }
}
