/**
 * The user's names for collections and fields (`--names <file.json>`, docs/catalogue.md#names-for-people): a JSON
 * map `{"collections": {"<API name>": "<name for people>"}, "fields": {...}}` that takes the place of the names the
 * catalogue derives from the data. Checked here, once, whether it comes from a file, a manifest or a library call;
 * kept with its keys sorted, so that the manifest that records it is the same for the same names.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { byCodeUnits } from '../util/code-unit-order.js';
import { UsageError } from '../util/errors.js';

/** Longer than any name for people; a longer value is a mistake (a pasted definition, say). */
const MAX_NAME = 200;

/** Whether the text holds a control character (a name is one line of text). */
function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

const name = z.string().refine((value) => value.trim() !== '' && value.length <= MAX_NAME && !hasControl(value), {
  message: `must be a name for people: text of 1 to ${MAX_NAME} characters, no control characters`,
});
const nameMap = z.record(z.string(), name);

/** The front page's introduction: a paragraph of text, longer than a name. */
const MAX_INTRODUCTION = 2000;
const introduction = z
  .string()
  .refine((value) => value.trim() !== '' && value.length <= MAX_INTRODUCTION && !hasControl(value), {
    message: `must be an introduction: text of 1 to ${MAX_INTRODUCTION} characters, no control characters`,
  });
/** The site's title (every page's header, the front page's heading) and the front page's introduction. */
const siteSchema = z.strictObject({ title: name.optional(), introduction: introduction.optional() });

export const namesSchema = z.strictObject({
  collections: nameMap.optional(),
  fields: nameMap.optional(),
  site: siteSchema.optional(),
});

/** Human names given by the user, by API name. */
export type CatalogueNames = z.infer<typeof namesSchema>;

const EXAMPLE =
  '{"collections": {"units": "Measured quantity units"}, "fields": {"provenance_uri": "Provenance link"}}';

/** Where in the map an issue is: `"collections"."units"`, or the top for an issue of the whole. */
function where(issue: z.core.$ZodIssue): string {
  const keys = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  return keys.length === 0 ? 'the top level' : keys.map((key) => JSON.stringify(String(key))).join('.');
}

function what(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return 'is not a key it may have (only "collections", "fields" and "site")';
  if (issue.code === 'invalid_type') return `must be ${issue.expected === 'string' ? 'a name (text)' : 'an object'}`;
  return issue.message;
}

/**
 * The names `value` gives, with keys sorted, or a UsageError naming `source` (the file, or "the manifest") and the
 * first bad key. Empty maps are left out, so no names at all is `{}`.
 */
export function checkNames(value: unknown, source: string): CatalogueNames {
  const parsed = namesSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`${source}: ${where(issue)} ${what(issue)}. Give a JSON object such as ${EXAMPLE}.`);
  }
  const sorted = (map: Record<string, string> | undefined) =>
    map === undefined || Object.keys(map).length === 0
      ? undefined
      : Object.fromEntries(Object.entries(map).sort(([a], [b]) => byCodeUnits(a, b)));
  const collections = sorted(parsed.data.collections);
  const fields = sorted(parsed.data.fields);
  const { title, introduction } = parsed.data.site ?? {};
  const site = title === undefined && introduction === undefined ? undefined : sorted({ ...parsed.data.site });
  return { ...(collections ? { collections } : {}), ...(fields ? { fields } : {}), ...(site ? { site } : {}) };
}

/** Whether `names` names nothing. */
export function noNames(names: CatalogueNames | undefined): boolean {
  return (
    names === undefined || (names.collections === undefined && names.fields === undefined && names.site === undefined)
  );
}

/** The names a `--names` file gives (`flag` names the option in messages). */
export function readNamesFile(file: string, flag = '--names'): CatalogueNames {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`${flag} ${file} cannot be read (${code}). Give a JSON file such as ${EXAMPLE}.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${flag} ${file} is not JSON (${(error as Error).message}). Give one such as ${EXAMPLE}.`);
  }
  return checkNames(value, `${flag} ${file}`);
}

/** Names of the `--names` file listed by name in the warning; the rest are counted. */
const LISTED_UNUSED = 10;

/**
 * The warning for names that nothing took (HumanNames.unused), or '' when there are none: a name for a misspelt API
 * name would otherwise be left out without a word.
 */
export function unusedNamesWarning(unused: readonly string[]): string {
  if (unused.length === 0) return '';
  const listed = unused.slice(0, LISTED_UNUSED).join(', ');
  const more = unused.length > LISTED_UNUSED ? ` and ${unused.length - LISTED_UNUSED} more` : '';
  const count = unused.length === 1 ? '1 name matches' : `${unused.length} names match`;
  return (
    `Warning: --names: ${count} no collection or field of this snapshot, so the catalogue does not use ` +
    `${unused.length === 1 ? 'it' : 'them'}: ${listed}${more}. Check the spelling against the API names ` +
    '(each record page shows them).'
  );
}
