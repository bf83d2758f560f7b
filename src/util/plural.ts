/** "1 record", "3 records": a count and its noun, for messages and pages (`many` for a noun not made with -s). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${noun(n, one, many)}`;
}

/** The noun alone, for a count written otherwise ("1,024 files", "3 more records"). */
export function noun(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}
