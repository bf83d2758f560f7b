/** `cv-snapshot serve`: a snapshot answered like the live service, queries included (docs/architecture.md#serve). */
export { startServe, ServeError, type ServeHandle, type ServeOptions } from './server.js';
