import { once } from 'node:events';
import { startServe } from '../serve/index.js';
import { defineCommand } from './command.js';
import { flag, integer, text } from './options.js';
import { printableLines } from '../util/safe-text.js';

export const serveCommand = defineCommand({
  name: 'serve',
  summary: 'Serve a snapshot like the live API: pages, page[size], sort, filter and include answered from its records.',
  args: [{ name: 'dir', description: 'the snapshot directory', optional: true, default: 'out' }],
  options: {
    port: integer('port', {
      placeholder: 'n',
      default: 3000,
      min: 0,
      max: 65535,
      description: 'Port to listen on; 0 picks a free one.',
    }),
    host: text('host', {
      placeholder: 'address',
      default: '127.0.0.1',
      description: 'Address to listen on (0.0.0.0 for every interface).',
    }),
    cors: flag('cors', {
      description: 'Allow any web origin: answer CORS preflights and send Access-Control-Allow-Origin: *.',
    }),
    quiet: flag('quiet', { description: 'No request log.' }),
  },
  details: `
The first line on stdout is the API root URL on this server, for scripts to read; the second, for people, the URL
of the catalogue's front page to open in a browser (when the snapshot has a catalogue). The request log (one line
per request, unless --quiet) goes to stderr, and so does, as it starts, why the snapshot is partial when it is (made
with --allow-partial: it answers 404 for the documents it lacks). Read-only: GET, HEAD and OPTIONS; other methods
get 405. Stop it with Ctrl-C.

Example:
  cv-snapshot serve cv-mirror --port 8080
  curl 'http://127.0.0.1:8080/sms/cv/api/v1/units/?page[size]=10000&filter[status.iexact]=ACCEPTED&sort=term'`,
  async run(args, { port, host, cors, quiet }, io) {
    const server = await startServe({
      dir: args[0]!,
      port,
      host,
      cors,
      ...(quiet ? {} : { log: (line: string) => io.stderr.write(`${printableLines(line)}\n`) }),
      warn: (line: string) => io.stderr.write(`${line}\n`),
    });
    io.stdout.write(`${server.url}\n`);
    if (server.catalogue !== null) io.stdout.write(`Open the catalogue in a browser: ${server.catalogue}\n`);
    if (server.partial !== null) io.stderr.write(`${server.partial}\n`);
    if (!io.signal.aborted) await once(io.signal, 'abort');
    await server.close();
    return 0;
  },
});
