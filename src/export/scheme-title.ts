/**
 * A collection's name as people read it: `measuredquantityunits` → "Measured quantity units". The source names its
 * collections by running words together, so the words are split at the vocabulary's own nouns, longest first; a
 * name made of other words keeps them as they are, and `-communities` reads "(community variants)".
 */

/** The nouns the CV API's collection names are made of (docs/source-api.md), longest first where one holds another. */
const WORDS = [
  'aggregation',
  'categories',
  'compartments',
  'communities',
  'contact',
  'countries',
  'equipment',
  'global',
  'licenses',
  'manufacturers',
  'measured',
  'media',
  'platform',
  'provenances',
  'quantities',
  'quantity',
  'roles',
  'sampling',
  'site',
  'software',
  'status',
  'types',
  'units',
  'usages',
  'action',
].sort((a, b) => b.length - a.length);

const COMMUNITY_SUFFIX = '-communities';

/** `name` cut into the words above, or null when some part of it is not one of them. */
function splitWords(name: string): string[] | null {
  if (name === '') return [];
  for (const word of WORDS) {
    if (!name.startsWith(word)) continue;
    const rest = splitWords(name.slice(word.length));
    if (rest !== null) return [word, ...rest];
  }
  return null;
}

/** The human title of the collection `name`. */
export function schemeTitle(name: string): string {
  const community = name.endsWith(COMMUNITY_SUFFIX) && name.length > COMMUNITY_SUFFIX.length;
  const base = community ? name.slice(0, -COMMUNITY_SUFFIX.length) : name;
  const words = splitWords(base)?.join(' ') ?? (base.replace(/[-_]+/g, ' ').trim() || base);
  const title = words.charAt(0).toUpperCase() + words.slice(1);
  return community ? `${title} (community variants)` : title;
}
