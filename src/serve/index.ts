/** `cv-snapshot serve`: a snapshot answered like the live service, queries included (DESIGN.md §6). */
export { startServe, ServeError, type ServeHandle, type ServeOptions } from './server.js';
