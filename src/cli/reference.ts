/**
 * The option tables of docs/cli.md, generated from the same definitions as the parser and --help. Each table sits
 * between `<!-- options:<command> -->` and `<!-- /options:<command> -->`; `npm run docs:cli` rewrites them, and a test
 * fails when one differs from the definitions.
 */
import { argumentLabel, optionLabel, type Command } from './command.js';

export const beginMarker = (command: string): string => `<!-- options:${command} -->`;
export const endMarker = (command: string): string => `<!-- /options:${command} -->`;

/** Text for a Markdown table cell: pipes escaped, and `<` so that `<dir>` is not taken for an HTML tag. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('<', '&lt;');
}

/** A code span in a table cell: pipes still need their escape there (GitHub's tables split on them first). */
function code(text: string): string {
  return `\`${text.replaceAll('|', '\\|')}\``;
}

/** The Markdown table of a command's arguments and options: name, default, meaning. */
export function optionTable(command: Command): string {
  const rows = ['| option | default | meaning |', '|---|---|---|'];
  for (const argument of command.args) {
    const fallback = argument.default === undefined ? '' : code(argument.default);
    rows.push(`| ${code(argumentLabel(argument))} | ${fallback} | ${cell(argument.description)} |`);
  }
  for (const option of Object.values(command.options)) {
    // A default that is a value reads as code; one that is prose (`no limit`) as text.
    const fallback =
      option.arity === 'flag'
        ? 'off'
        : option.defaultText === undefined
          ? ''
          : option.defaultValue === undefined
            ? cell(option.defaultText)
            : code(option.defaultText);
    const repeatable = option.arity === 'list' ? ' Repeatable.' : '';
    rows.push(`| ${code(optionLabel(option))} | ${fallback} | ${cell(option.description)}${repeatable} |`);
  }
  return rows.join('\n');
}

export interface ReferenceCheck {
  /** The text with every command's table regenerated. */
  text: string;
  /** Commands with no table in the text (their markers are missing). */
  missing: string[];
  /** Commands whose table differs from their definitions. */
  stale: string[];
}

/** Regenerates the option table of every command in `readme`, and says which were missing or out of date. */
export function updateReference(readme: string, commands: readonly Command[]): ReferenceCheck {
  let text = readme;
  const missing: string[] = [];
  const stale: string[] = [];
  for (const command of commands) {
    const begin = text.indexOf(beginMarker(command.name));
    const end = text.indexOf(endMarker(command.name));
    if (begin < 0 || end < begin) {
      missing.push(command.name);
      continue;
    }
    const from = begin + beginMarker(command.name).length;
    const table = `\n${optionTable(command)}\n`;
    if (text.slice(from, end) !== table) stale.push(command.name);
    text = text.slice(0, from) + table + text.slice(end);
  }
  return { text, missing, stale };
}
