import { readFileSync } from 'node:fs';

/** The tool's name and version, from package.json (one source of truth for the User-Agent and the manifest). */
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};

export const TOOL_NAME = pkg.name;
export const TOOL_VERSION = pkg.version;
export const USER_AGENT = `${TOOL_NAME}/${TOOL_VERSION}`;
