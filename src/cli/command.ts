/**
 * Commands: each declares its arguments and typed options once (options.ts); the parser, the values' types, `--help`
 * and the option tables of docs/cli.md (reference.ts) all come from that declaration, so none can drift from another.
 */
import { UsageError } from '../util/errors.js';
import type { OptionDefs, OptionValues } from './options.js';
import { quote } from './options.js';
import { plural } from '../util/plural.js';

export interface ArgumentDef {
  name: string;
  description: string;
  optional?: boolean;
  default?: string;
}

/** How the user started this program (invocation.ts), for hints they can paste. */
export interface Invocation {
  /** The command to type: `cv-snapshot`, `npx cv-snapshot`, `node dist/cli.js`… */
  program: string;
  /** The directory it was typed in: paths in hints are relative to it. */
  directory: string;
}

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM; long-running commands stop when it fires. */
  signal: AbortSignal;
  /** Default: `cv-snapshot` in the current directory. */
  invocation?: Invocation;
}

/** How a command's failure is reported, where it differs from a sentence on stderr with the error's exit code. */
export interface FailureReport {
  /** The exit code of every failure but an interruption (`diff --exit-code`: 2, as diff(1) says "trouble"). */
  exitCode?: number;
  /** Also print `{"error": {"message", "exitCode"}}` on stdout (commands run with `--json`). */
  json?: boolean;
}

export interface CommandDef<O extends OptionDefs> {
  name: string;
  summary: string;
  args: readonly ArgumentDef[];
  options: O;
  /** Extra paragraphs for --help (examples, exit codes). */
  details?: string;
  failure?: (options: OptionValues<O>) => FailureReport;
  run(args: string[], options: OptionValues<O>, io: Io): Promise<number>;
}

/** A command parsed from its command line, ready to run. */
export interface PreparedRun {
  run(io: Io): Promise<number>;
  failure: FailureReport;
}

/** A command with its option types hidden, so that commands of every shape fit in one list. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly args: readonly ArgumentDef[];
  readonly options: OptionDefs;
  readonly details?: string;
  /** The run that `argv` asks for, or 'help' when it asks for help; throws UsageError on a bad command line. */
  prepare(argv: readonly string[], program: string): PreparedRun | 'help';
}

export function defineCommand<O extends OptionDefs>(def: CommandDef<O>): CommandDef<O> & Command {
  return {
    ...def,
    prepare(argv, program) {
      const parsed = parseCommandLine(def, argv, program);
      if (parsed === 'help') return 'help';
      return {
        run: (io) => def.run(parsed.args, parsed.options, io),
        failure: def.failure?.(parsed.options) ?? {},
      };
    },
  };
}

const HELP_FLAGS = ['--help', '-h'];

/** Whether `argv` asks for help anywhere before `--`: help is shown even when the rest is wrong. */
function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => HELP_FLAGS.includes(arg));
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

function unknownOption(arg: string, flags: string[], help: string): string {
  const name = arg.replace(/^-+/, '').split('=')[0]!;
  // Only the name is shown: what follows `=` may be a credential.
  const dashes = arg.startsWith('--') ? '--' : '-';
  const shown = /^[A-Za-z0-9-]*$/.test(name) ? `${dashes}${name}` : quote(arg.split('=')[0]!);
  const near = flags.filter((f) => editDistance(f, name) <= 2 || (name.length >= 3 && f.startsWith(name)));
  const suggestion = near.length > 0 ? ` Did you mean ${near.map((f) => `--${f}`).join(' or ')}?` : '';
  return `there is no option ${shown}.${suggestion} ${help}`;
}

export interface ParsedCommandLine<O extends OptionDefs> {
  args: string[];
  options: OptionValues<O>;
}

/**
 * Parses argv for one command. Options are `--name value` or `--name=value`; the value of an option that takes one
 * is the next argument even when it starts with `-` (so `--concurrency -1` gets the range message), but not when it
 * starts with `--` (a forgotten value). `--` ends the options. Throws UsageError with a sentence that names the
 * option; never shows what followed `=` in an option it does not know.
 */
export function parseCommandLine<O extends OptionDefs>(
  command: CommandDef<O>,
  argv: readonly string[],
  program: string,
): ParsedCommandLine<O> | 'help' {
  if (asksForHelp(argv)) return 'help';
  const help = `Run "${program} ${command.name} --help" for its options.`;
  const byFlag = new Map(Object.entries(command.options).map(([key, option]) => [option.flag, { key, option }]));
  const values: Record<string, unknown> = {};
  for (const [key, option] of Object.entries(command.options)) values[key] = option.defaultValue;
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const match = /^--([^=]+)(?:=([^]*))?$/.exec(arg);
    const found = match ? byFlag.get(match[1]!) : undefined;
    if (match === null || found === undefined) throw new UsageError(unknownOption(arg, [...byFlag.keys()], help));
    const { key, option } = found;
    const inline = match[2];
    if (option.arity === 'flag') {
      if (inline !== undefined) throw new UsageError(`--${option.flag} takes no value; give it alone. ${help}`);
      values[key] = option.accept('', values[key]);
      continue;
    }
    let raw = inline;
    if (raw === undefined) {
      raw = argv[i + 1];
      if (raw === undefined || raw.startsWith('--')) {
        throw new UsageError(
          `--${option.flag} needs a value: --${option.flag} <${option.placeholder}>` +
            (raw === undefined ? '.' : ` (write --${option.flag}=${raw} for a value that starts with --).`),
        );
      }
      i++;
    }
    values[key] = option.accept(raw, values[key]);
  }
  const required = command.args.filter((a) => !a.optional).length;
  if (positionals.length < required) {
    const missing = command.args[positionals.length]!;
    throw new UsageError(`${command.name} needs <${missing.name}>: ${missing.description}. ${help}`);
  }
  if (positionals.length > command.args.length) {
    const extra = positionals.slice(command.args.length).map(quote).join(' ');
    const most = command.args.length;
    const arguments_ = plural(most, 'argument');
    throw new UsageError(`${command.name} takes at most ${arguments_}, but got ${extra} too. ${help}`);
  }
  const args = command.args.map((a, i) => positionals[i] ?? a.default ?? '');
  // The one place values meet their types: each was set above from its own definition (default or accept).
  return { args, options: values as OptionValues<O> };
}

/** `--timeout <ms>`, `--links <relative|absolute|original>`, `--quiet`. */
export function optionLabel(option: { flag: string; arity: string; placeholder: string }): string {
  return option.arity === 'flag' ? `--${option.flag}` : `--${option.flag} <${option.placeholder}>`;
}

/** An argument as the usage line and docs/cli.md show it: `<dir>`, or `[dir]` when optional. */
export function argumentLabel(argument: ArgumentDef): string {
  return argument.optional ? `[${argument.name}]` : `<${argument.name}>`;
}

/** The help text of an option or argument: its description, then `Repeatable.` and its default. */
function describe(description: string, extras: { repeatable?: boolean; defaultText?: string | undefined }): string {
  const parts = [description];
  if (extras.repeatable) parts.push('Repeatable.');
  if (extras.defaultText !== undefined) parts.push(`(default: ${extras.defaultText})`);
  return parts.join(' ');
}

const HELP_WIDTH = 100;
const LABEL_WIDTH = 30;

/** Words of `text` in lines of at most `width` characters (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * Rows of a two-column list: the first column as wide as its widest label up to LABEL_WIDTH (a longer label gets a
 * line of its own, its text starting below it), the second wrapped to HELP_WIDTH.
 */
function columns(rows: Array<[string, string]>): string[] {
  const width = Math.min(LABEL_WIDTH, Math.max(...rows.map(([label]) => label.length)));
  const textWidth = HELP_WIDTH - width - 4;
  return rows.flatMap(([label, text]) => {
    const lines = wrap(text, textWidth);
    const first = label.length > width ? [`  ${label}`, ...lines] : lines;
    return first.map((line, i) =>
      label.length > width && i === 0 ? line : `  ${(i === 0 ? label : '').padEnd(width)}  ${line}`,
    );
  });
}

export function formatHelp(program: string, command: Command): string {
  const args = command.args.map(argumentLabel).join(' ');
  const lines = [`Usage: ${program} ${command.name}${args ? ` ${args}` : ''} [options]`, '', command.summary, ''];
  if (command.args.length > 0) {
    lines.push('Arguments:');
    lines.push(...columns(command.args.map((a) => [a.name, describe(a.description, { defaultText: a.default })])));
    lines.push('');
  }
  lines.push('Options:');
  const rows: Array<[string, string]> = Object.values(command.options).map((o) => [
    optionLabel(o),
    describe(o.description, { repeatable: o.arity === 'list', defaultText: o.defaultText }),
  ]);
  rows.push([`-h, --help`, 'Show this help and exit.']);
  lines.push(...columns(rows));
  if (command.details) lines.push('', command.details.trim());
  return `${lines.join('\n')}\n`;
}
