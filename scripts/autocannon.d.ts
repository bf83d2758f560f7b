/**
 * The part of autocannon (a dev dependency that ships no types) that load-serve.mjs uses, from its README.
 * @types/autocannon describes version 7, not the 9 we run.
 */
declare module 'autocannon' {
  /** Per-connection state that `setupRequest` and `onResponse` share. */
  interface Context {
    path?: string;
  }
  interface Request {
    path?: string;
    method?: string;
    setupRequest?: (request: Request, context: Context) => Request;
    onResponse?: (status: number, body: string, context: Context) => void;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    requests?: Request[];
  }
  interface Result {
    requests: { average: number; total: number };
    latency: { p99: number };
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
