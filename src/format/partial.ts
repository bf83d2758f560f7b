/**
 * What makes a snapshot partial (docs/snapshot.md#the-manifest), in the words every command uses: documents that
 * could not be fetched (the manifest's `missing`), and collections whose pages disagreed every time they were
 * fetched (its `shifted`), both published only with --allow-partial.
 */
import { quoteUntrusted } from '../util/safe-text.js';
import { plural } from '../util/plural.js';
import type { Manifest } from './manifest.js';

/** The collections a snapshot published as fetched although their pages shifted (none in an older manifest). */
export function shiftedOf(manifest: Pick<Manifest, 'shifted'>): string[] {
  return manifest.shifted ?? [];
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  const quoted = names.map((name) => quoteUntrusted(name, 100));
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)!}`;
}

/**
 * What a shifted collection means for the snapshot's records, a sentence without its capital: the names are the
 * source's, made printable.
 */
export function shiftedSentence(names: readonly string[]): string {
  const each = names.length === 1 ? 'it' : 'each';
  return (
    `the pages of ${plural(names.length, 'collection')} (${listed(names)}) disagreed every time they were fetched ` +
    `and ${names.length === 1 ? 'it was' : 'they were'} published as fetched: ${each} may hold some of its records ` +
    'twice and miss others (pagination.shifted in the report, shifted in the manifest).'
  );
}

/** Why `name` is partial, one sentence per reason, for `verify` (the snapshot is partial). */
export function partialSentence(name: string, manifest: Pick<Manifest, 'missing' | 'shifted'>): string {
  const { missing } = manifest;
  const shifted = shiftedOf(manifest);
  const reasons = [];
  if (missing.length > 0) {
    reasons.push(
      `${plural(missing.length, 'document')} could not be fetched when it was made (listed under "missing" in ` +
        `its manifest, for example ${quoteUntrusted(missing[0]!)})`,
    );
  }
  if (shifted.length > 0) reasons.push(shiftedSentence(shifted).slice(0, -1));
  // A manifest written by hand may say partial and name neither.
  if (reasons.length === 0) reasons.push('its manifest says so, naming neither missing documents nor collections');
  return `${name} is a partial snapshot: ${reasons.join('; and ')}. Crawl again to complete it.`;
}
