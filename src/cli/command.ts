/**
 * Command definitions: each command declares its arguments and options once; the parser and `--help` are both
 * generated from that declaration, so the help cannot drift from what is accepted.
 */
import { parseArgs } from 'node:util';
import { UsageError } from '../errors.js';

export interface OptionDef {
  name: string;
  type: 'string' | 'number' | 'boolean';
  /** Shown in the help, e.g. `ms` in `--timeout <ms>`. */
  placeholder?: string;
  description: string;
  default?: string | number | boolean;
  /** Allowed values for a string option. */
  choices?: readonly string[];
  multiple?: boolean;
  /** Inclusive bounds for a number option. */
  min?: number;
  max?: number;
}

export interface ArgumentDef {
  name: string;
  description: string;
  optional?: boolean;
  default?: string;
}

export type OptionValues = Record<string, string | number | boolean | string[] | undefined>;

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM; long-running commands stop when it fires. */
  signal: AbortSignal;
}

export interface CommandDef {
  name: string;
  summary: string;
  args: ArgumentDef[];
  options: OptionDef[];
  /** Extra paragraphs for --help (examples, exit codes). */
  details?: string;
  run(args: string[], options: OptionValues, io: Io): Promise<number>;
}

const HELP_OPTION: OptionDef = { name: 'help', type: 'boolean', description: 'Show this help and exit.' };

function optionLabel(option: OptionDef): string {
  if (option.type === 'boolean') return `--${option.name}`;
  const placeholder = option.choices ? option.choices.join('|') : (option.placeholder ?? option.type);
  return `--${option.name} <${placeholder}>`;
}

export function formatHelp(program: string, command: CommandDef): string {
  const args = command.args.map((a) => (a.optional ? `[${a.name}]` : `<${a.name}>`)).join(' ');
  const lines = [`Usage: ${program} ${command.name}${args ? ` ${args}` : ''} [options]`, '', command.summary, ''];
  if (command.args.length > 0) {
    lines.push('Arguments:');
    for (const a of command.args) {
      const suffix = a.default !== undefined ? ` (default: ${a.default})` : '';
      lines.push(`  ${a.name.padEnd(28)} ${a.description}${suffix}`);
    }
    lines.push('');
  }
  lines.push('Options:');
  for (const o of [...command.options, HELP_OPTION]) {
    const parts = [o.description];
    if (o.multiple) parts.push('Repeatable.');
    if (o.default !== undefined && o.type !== 'boolean') parts.push(`(default: ${String(o.default)})`);
    lines.push(`  ${optionLabel(o).padEnd(28)} ${parts.join(' ')}`);
  }
  if (command.details) lines.push('', command.details.trim());
  return `${lines.join('\n')}\n`;
}

export interface ParsedCommandLine {
  help: boolean;
  args: string[];
  options: OptionValues;
}

/** Parses argv for one command; throws UsageError with a sentence that names the bad option. */
export function parseCommandLine(command: CommandDef, argv: string[]): ParsedCommandLine {
  const config: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = { help: { type: 'boolean' } };
  for (const o of command.options) {
    config[o.name] = { type: o.type === 'boolean' ? 'boolean' : 'string', ...(o.multiple ? { multiple: true } : {}) };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: config, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\.$/, '')}. Run "cv-snapshot ${command.name} --help".`);
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (values.help === true) return { help: true, args: [], options: {} };
  const options: OptionValues = {};
  for (const o of command.options) {
    const raw = values[o.name];
    if (raw === undefined) {
      options[o.name] = o.default ?? (o.multiple ? [] : undefined);
      continue;
    }
    if (o.type === 'number') {
      const value = Number(raw);
      if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(value)) {
        throw new UsageError(`--${o.name} takes a number, not "${String(raw)}".`);
      }
      if ((o.min !== undefined && value < o.min) || (o.max !== undefined && value > o.max)) {
        throw new UsageError(`--${o.name} must be between ${o.min ?? '-∞'} and ${o.max ?? '∞'}, not ${value}.`);
      }
      options[o.name] = value;
    } else if (o.choices && typeof raw === 'string' && !o.choices.includes(raw)) {
      throw new UsageError(`--${o.name} takes one of ${o.choices.join(', ')}, not "${raw}".`);
    } else {
      options[o.name] = raw;
    }
  }
  const required = command.args.filter((a) => !a.optional).length;
  if (parsed.positionals.length < required) {
    const missing = command.args[parsed.positionals.length]!;
    throw new UsageError(`${command.name} needs <${missing.name}>: ${missing.description}. Run "cv-snapshot ${command.name} --help".`);
  }
  if (parsed.positionals.length > command.args.length) {
    throw new UsageError(
      `${command.name} takes at most ${command.args.length} argument${command.args.length === 1 ? '' : 's'}, ` +
        `but got "${parsed.positionals.slice(command.args.length).join(' ')}" too.`,
    );
  }
  const args = command.args.map((a, i) => parsed.positionals[i] ?? a.default ?? '');
  return { help: false, args, options };
}
