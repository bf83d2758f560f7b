import { once } from 'node:events';
import { startServe } from '../serve/index.js';
import type { CommandDef } from './command.js';

export const serveCommand: CommandDef = {
  name: 'serve',
  summary: 'Serve a snapshot like the live API: pages, page[size], sort, filter and include answered from its records.',
  args: [{ name: 'dir', description: 'the snapshot directory', optional: true, default: 'out' }],
  options: [
    { name: 'port', type: 'number', placeholder: 'n', default: 3000, min: 0, max: 65535, description: 'Port to listen on; 0 picks a free one.' },
    { name: 'host', type: 'string', placeholder: 'address', default: '127.0.0.1', description: 'Address to listen on (0.0.0.0 for every interface).' },
    { name: 'cors', type: 'boolean', description: 'Allow any web origin: answer CORS preflights and send Access-Control-Allow-Origin: *.' },
    { name: 'quiet', type: 'boolean', description: 'No request log.' },
  ],
  details: `
The first line on stdout is the API root URL on this server; then one line per request unless --quiet.
Read-only: GET, HEAD and OPTIONS; other methods get 405. Stop it with Ctrl-C.

Example:
  cv-snapshot serve cv-mirror --port 8080
  curl 'http://127.0.0.1:8080/sms/cv/api/v1/units/?page[size]=10000&filter[status.iexact]=ACCEPTED&sort=term'`,
  async run(args, options, io) {
    const server = await startServe({
      dir: args[0]!,
      port: options.port as number,
      host: options.host as string,
      cors: options.cors === true,
      ...(options.quiet === true ? {} : { log: (line: string) => io.stdout.write(`${line}\n`) }),
    });
    io.stdout.write(`${server.url}\n`);
    if (!io.signal.aborted) await once(io.signal, 'abort');
    await server.close();
    return 0;
  },
};
