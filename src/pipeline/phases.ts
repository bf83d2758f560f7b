/**
 * The CPU time (user + system, every thread of the process) of a crawl's phases, for `--json` and the bench: where a
 * document's cost goes, measured in the run itself rather than guessed from a profile. Never in a snapshot.
 */

/** The phases timed: fetching and storing the documents, then finalize and, within it, the catalogue's parts. */
export type PhaseName = 'crawl' | 'finalize' | 'catalogue' | 'downloads' | 'publish';

/** CPU milliseconds this process has used since it started. */
export function processCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

export class PhaseTimes {
  readonly #ms = new Map<PhaseName, number>();

  /** Runs `work`, adding the CPU time it took to `name`'s. */
  time<T>(name: PhaseName, work: () => T): T {
    const start = processCpuMs();
    try {
      return work();
    } finally {
      this.add(name, processCpuMs() - start);
    }
  }

  /** Starts timing `name` across asynchronous work; the function returned stops it. */
  start(name: PhaseName): () => void {
    const start = processCpuMs();
    return () => this.add(name, processCpuMs() - start);
  }

  add(name: PhaseName, ms: number): void {
    this.#ms.set(name, (this.#ms.get(name) ?? 0) + ms);
  }

  /** Milliseconds by phase, in the order the phases ran, rounded to 0.1 ms. */
  toJSON(): Partial<Record<PhaseName, number>> {
    return Object.fromEntries([...this.#ms].map(([name, ms]) => [name, Math.round(ms * 10) / 10]));
  }
}
