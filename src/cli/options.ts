/**
 * Typed option definitions. Each definition holds an option's flag, how its value is written and checked, its
 * default and its help text; a command's parsed values get their types from its definitions (`OptionValues`), so no
 * command reads an option through a cast, and a bad value is refused here (exit 2) before any command runs.
 *
 * A definition with `default: undefined` has no default: its value is `undefined` when the option is not given, and
 * the library then applies its own (`DEFAULTS` in the snapshot library), or the feature stays off.
 *
 * Adding an option is one entry in its command's `options` (for a crawl option: `CRAWL_OPTIONS`, keyed by its
 * `SnapshotOptions` name, default in `DEFAULTS`), then `npm run docs:cli` for the tables of docs/cli.md.
 */
import { UsageError } from '../util/errors.js';
import { redactUrl, redactUrls } from '../util/safe-text.js';

export interface Option<T> {
  /** The long name, without `--`. */
  readonly flag: string;
  /** `flag` takes no value; `value` takes one (the last one given wins); `list` may be repeated and keeps them all. */
  readonly arity: 'flag' | 'value' | 'list';
  /** Which constructor made it: what its values look like. */
  readonly kind: 'flag' | 'text' | 'choice' | 'integer' | 'decimal' | 'url' | 'list';
  /** How the value is written in --help and docs/cli.md: `n` in `--retries <n>`, or the choices. Empty for flags. */
  readonly placeholder: string;
  readonly description: string;
  /** The value when the option is not given. */
  readonly defaultValue: T;
  /** How the default reads in --help and docs/cli.md, when there is one to show. */
  readonly defaultText: string | undefined;
  /** The value after `raw` is given (`previous` is what the earlier occurrences gave); throws UsageError. */
  accept(raw: string, previous: T): T;
}

/** A command's option definitions, keyed by the name its code (and the library's options) use. */
export type OptionDefs = Readonly<Record<string, Option<unknown>>>;

/** The parsed values of a command's options, typed from its definitions. */
export type OptionValues<D extends OptionDefs> = { [K in keyof D]: D[K] extends Option<infer T> ? T : never };

interface Described {
  description: string;
}

interface Valued<D> extends Described {
  /** Shown in help as `<placeholder>`. */
  placeholder: string;
  /** `undefined`: no default (see the module comment). */
  default: D;
  /** How a missing default reads in help (`no limit`), or a default that is not a plain value (`<dir>.tar.gz`). */
  defaultText?: string;
}

interface Ranged<D> extends Valued<D> {
  /** Inclusive bounds. */
  min: number;
  max: number;
}

/** A value as it may be shown in a message: quoted, escaped, and cut short (it may be long, or hold escapes). */
export function quote(raw: string): string {
  // A URL's password is never repeated (redacted before the value is cut short, so no part of it shows).
  const safe = redactUrls(redactUrl(raw));
  return JSON.stringify(safe.length > 60 ? `${safe.slice(0, 57)}...` : safe);
}

function defaultText(spec: { default: string | number | undefined; defaultText?: string }): string | undefined {
  return spec.defaultText ?? (spec.default === undefined ? undefined : String(spec.default));
}

/** An option that takes no value: `true` when given. */
export function flag(name: string, spec: Described): Option<boolean> {
  return {
    flag: name,
    arity: 'flag',
    kind: 'flag',
    placeholder: '',
    description: spec.description,
    defaultValue: false,
    defaultText: undefined,
    accept: () => true,
  };
}

/** Any text, such as a path or a host name. */
export function text<D extends string | undefined>(name: string, spec: Valued<D>): Option<string | D> {
  return {
    flag: name,
    arity: 'value',
    kind: 'text',
    placeholder: spec.placeholder,
    description: spec.description,
    defaultValue: spec.default,
    defaultText: defaultText(spec),
    accept: (raw) => {
      // An empty path would mean the current directory, which nobody means by `--out ""`.
      if (raw === '') throw new UsageError(`--${name} needs a value (<${spec.placeholder}>), not an empty string.`);
      return raw;
    },
  };
}

/** A file read when the option is given: its value is what `read` makes of it (which throws UsageError). */
export function file<T>(name: string, spec: Valued<undefined>, read: (file: string) => T): Option<T | undefined> {
  const path = text(name, spec);
  return {
    ...path,
    defaultValue: undefined,
    accept: (raw) => read(path.accept(raw, undefined) ?? raw),
  };
}

/** One of a fixed list of words. */
export function choice<C extends string, D extends C | undefined>(
  name: string,
  choices: readonly C[],
  spec: Described & { default: D },
): Option<C | D> {
  const accept = (raw: string): C => {
    const found = choices.find((c) => c === raw);
    if (found === undefined) throw new UsageError(`--${name} takes one of ${choices.join(', ')}, not ${quote(raw)}.`);
    return found;
  };
  return {
    flag: name,
    arity: 'value',
    kind: 'choice',
    placeholder: choices.join('|'),
    description: spec.description,
    defaultValue: spec.default,
    defaultText: defaultText(spec),
    accept,
  };
}

function checkRange(name: string, value: number, spec: { min: number; max: number }): number {
  if (value < spec.min || value > spec.max) {
    throw new UsageError(`--${name} must be between ${spec.min} and ${spec.max}, not ${value}.`);
  }
  return value;
}

// Digits only: `Number()` would also take ` 5`, `1e3`, `0x10`, `Infinity` and the empty string (as 0).
const WHOLE_NUMBER = /^-?[0-9]+$/;
const DECIMAL_NUMBER = /^-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)$/;

/** A whole number (written in decimal digits) within inclusive bounds. */
export function integer<D extends number | undefined>(name: string, spec: Ranged<D>): Option<number | D> {
  const accept = (raw: string): number => {
    // Beyond safe integers digits stop being exact; the range check then refuses the value.
    if (!WHOLE_NUMBER.test(raw)) {
      throw new UsageError(`--${name} takes a whole number between ${spec.min} and ${spec.max}, not ${quote(raw)}.`);
    }
    return checkRange(name, Number(raw), spec);
  };
  return {
    flag: name,
    arity: 'value',
    kind: 'integer',
    placeholder: spec.placeholder,
    description: spec.description,
    defaultValue: spec.default,
    defaultText: defaultText(spec),
    accept,
  };
}

/** A decimal number such as `0.5` (no exponent) within inclusive bounds. */
export function decimal<D extends number | undefined>(name: string, spec: Ranged<D>): Option<number | D> {
  const accept = (raw: string): number => {
    if (!DECIMAL_NUMBER.test(raw)) {
      const range = `between ${spec.min} and ${spec.max}`;
      throw new UsageError(`--${name} takes a number ${range}, such as 0.5, not ${quote(raw)}.`);
    }
    return checkRange(name, Number(raw), spec);
  };
  return {
    flag: name,
    arity: 'value',
    kind: 'decimal',
    placeholder: spec.placeholder,
    description: spec.description,
    defaultValue: spec.default,
    defaultText: defaultText(spec),
    accept,
  };
}

/** An absolute http: or https: URL. */
export function url<D extends string | undefined>(
  name: string,
  spec: Valued<D> & { example: string },
): Option<string | D> {
  const accept = (raw: string): string => {
    const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      throw new UsageError(`--${name} takes an absolute http or https URL such as ${spec.example}, not ${quote(raw)}.`);
    }
    return raw;
  };
  return {
    flag: name,
    arity: 'value',
    kind: 'url',
    placeholder: spec.placeholder,
    description: spec.description,
    defaultValue: spec.default,
    defaultText: defaultText(spec),
    accept,
  };
}

/**
 * An option that may be given several times; its value lists every one, in order. `check` refuses a bad value
 * with a UsageError (it decides what the message may show: a header value never appears in one).
 */
export function list(
  name: string,
  spec: Described & { placeholder: string; check?: (raw: string) => void },
): Option<string[]> {
  return {
    flag: name,
    arity: 'list',
    kind: 'list',
    placeholder: spec.placeholder,
    description: spec.description,
    defaultValue: [],
    defaultText: undefined,
    accept: (raw, previous) => {
      spec.check?.(raw);
      return [...previous, raw];
    },
  };
}
