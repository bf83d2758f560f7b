/**
 * The problems verify finds, as sentences safe for a terminal (no terminal escapes, no passwords in URLs). A
 * snapshot can hold any number of them (a document with millions of links to files it lacks): the first
 * `LISTED_PROBLEMS` are kept and the rest counted, so memory does not grow with them.
 */
import { printable, redactUrls } from '../util/safe-text.js';

/** Problems listed one by one; the rest are counted. */
const LISTED_PROBLEMS = 2000;
/** A problem is one line of a terminal or two, whatever a document put in it. */
const MAX_PROBLEM_CHARS = 1000;

export class Problems {
  /** The first `LISTED_PROBLEMS` problems, in the order found. */
  readonly listed: string[] = [];
  #count = 0;

  /** Every problem found, listed or not. */
  get count(): number {
    return this.#count;
  }

  add(text: string): void {
    this.#count += 1;
    if (this.listed.length < LISTED_PROBLEMS) this.listed.push(printable(redactUrls(text), MAX_PROBLEM_CHARS));
  }
}
