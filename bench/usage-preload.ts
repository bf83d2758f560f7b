/**
 * Loaded with `node --import` into every Node child of the benchmark. At exit it writes the process's own CPU time
 * and peak RSS (getrusage, the figures GNU time reports for curl) to the file named by BENCH_USAGE_FILE, so the
 * benchmark measures the child itself and not a wrapper around it.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_USAGE_FILE;
if (file !== undefined && file !== '') {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({ userMs: usage.userCPUTime / 1000, sysMs: usage.systemCPUTime / 1000, maxRssKb: usage.maxRSS }),
    );
  });
}
