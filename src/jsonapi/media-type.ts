/**
 * JSON:API's media type: what the crawl asks the source for, and what a snapshot's documents are served as. A module
 * of its own, so that the commands that only read a snapshot do not load the HTTP client with it.
 */
export const MEDIA_TYPE = 'application/vnd.api+json';
