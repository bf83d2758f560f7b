/** `cv-snapshot serve`: a snapshot answered like the live service, queries included (docs/architecture.md#serve). */
export { startServe, type ServeHandle, type ServeOptions } from './server.js';
export { ServeError } from '../util/errors.js';
