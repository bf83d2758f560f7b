/**
 * Loaded with `node --import` into every Node child of the benchmark. At exit it writes the process's own CPU time
 * and peak RSS (getrusage, the figures GNU time reports for curl) and the time its garbage collections took (from
 * perf_hooks' gc entries) to the file named by BENCH_USAGE_FILE, so the benchmark measures the child itself and not a
 * wrapper around it.
 */
import { writeFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

const file = process.env.BENCH_USAGE_FILE;
if (file !== undefined && file !== '') {
  let gcMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({
        userMs: usage.userCPUTime / 1000,
        sysMs: usage.systemCPUTime / 1000,
        maxRssKb: usage.maxRSS,
        gcMs,
      }),
    );
  });
}
