/**
 * The checks a run makes on its options before anything is touched: the root URL, and the options the manifest
 * records (links, base URL, collection index, strictness, header names).
 */
import { UsageError } from '../util/errors.js';
import type { CollectionIndexMode, Manifest } from '../format/manifest.js';
import type { CatalogueMode } from '../format/layout.js';
import type { LinkMode } from '../format/rewrite-links.js';
import { redactUrl, redactUrls } from '../util/safe-text.js';
import { canonicalRoot, InvalidUrlError } from '../url/canonical-url.js';
import { checkNames, noNames, type CatalogueNames } from '../format/human-names.js';
import { DEFAULTS, type SnapshotOptions } from './snapshot-options.js';

function hasCredentials(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return parsed.username !== '' || parsed.password !== '';
}

export function rootOf(rootUrl: string): string {
  const example = 'Give the API root URL, such as https://sms-cv.helmholtz.cloud/sms/cv/api/v1/.';
  const schemeless = !/^[a-z][a-z0-9+.-]*:\/\//i.test(rootUrl) && URL.canParse(`http://${rootUrl}`);
  if (hasCredentials(rootUrl) || (schemeless && hasCredentials(`http://${rootUrl}`))) {
    throw new UsageError(
      `The root URL ${redactUrl(schemeless ? `http://${rootUrl}` : rootUrl)} holds a user name or password, ` +
        'which a URL must not carry here (it would be shown and recorded). Give the URL without them, and the ' +
        'credentials with --header, such as --header "Authorization: Basic <base64 of user:password>".',
    );
  }
  if (schemeless) {
    throw new UsageError(
      `The root URL "${rootUrl}" has no scheme: add http:// or https://, as in http://${rootUrl} (or https://).`,
    );
  }
  try {
    return canonicalRoot(rootUrl);
  } catch (error) {
    if (error instanceof InvalidUrlError) {
      throw new UsageError(`${redactUrls(error.message)} ${example}`, { cause: error });
    }
    throw error;
  }
}

/** The manifest's `names` member: present only when names were given. */
export function recordedNames(names: CatalogueNames): { names?: CatalogueNames } {
  return noNames(names) ? {} : { names };
}

export function manifestOptions(
  options: SnapshotOptions,
  headers: Record<string, string>,
): Manifest['options'] & { links: LinkMode; collectionIndex: CollectionIndexMode; catalogue: CatalogueMode } {
  const links = options.links ?? DEFAULTS.links;
  if (links === 'absolute' && options.baseUrl === undefined) {
    throw new UsageError(
      '--links absolute needs --base-url, the address the mirror will have (for example https://cv.example.org/).',
    );
  }
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl)) {
    throw new UsageError(
      `--base-url "${redactUrl(options.baseUrl)}" is not an absolute URL; ` +
        'give one such as https://cv.example.org/mirror/.',
    );
  }
  if (options.baseUrl !== undefined && hasCredentials(options.baseUrl)) {
    throw new UsageError(
      `--base-url ${redactUrl(options.baseUrl)} holds a user name or password, which would be written into the ` +
        'manifest and every rewritten link. Give the address the mirror will have without them.',
    );
  }
  return {
    links,
    baseUrl: options.baseUrl ?? null,
    collectionIndex: options.collectionIndex ?? DEFAULTS.collectionIndex,
    catalogue: options.catalogue ?? DEFAULTS.catalogue,
    strict: options.strict ?? false,
    headers: Object.keys(headers)
      .sort()
      .map((name) => `${name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase())}: ***`),
    // Only with a capture: a snapshot without one keeps the bytes it always had.
    ...(options.warc === true ? { warc: true } : {}),
    // Last, as `cv-snapshot catalogue` adds it to a manifest written without it.
    ...recordedNames(options.names === undefined ? {} : checkNames(options.names, 'The names option')),
  };
}
