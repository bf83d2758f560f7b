/**
 * Loaded with `node --import` into every Node child of the benchmark. At exit it writes the process's own CPU time
 * and peak RSS (getrusage, the figures GNU time reports for curl), the time its garbage collections took (from
 * perf_hooks' gc entries) and, where /proc has it, the CPU time of its main thread alone, to the file named by
 * BENCH_USAGE_FILE, so the benchmark measures the child itself and not a wrapper around it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * The main thread's CPU time (user + system) in ms, from /proc/self/task/<pid>/stat, whose thread id is the
 * process's; null where there is no /proc. The rest of the process's CPU time is its other threads': V8's (the
 * optimising compiler, the collector's helpers) and libuv's.
 */
function mainThreadMs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // After the command name (in parentheses, which may hold spaces): utime is field 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const perSecond = Number(process.env.BENCH_CLOCK_TICKS ?? 100);
    return Number.isFinite(ticks) ? (ticks * 1000) / perSecond : null;
  } catch {
    return null;
  }
}

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
        mainThreadMs: mainThreadMs(),
      }),
    );
  });
}
