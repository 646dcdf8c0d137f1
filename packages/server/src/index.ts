/**
 * The Tickwheel scheduling server. Placeholder until the server issue lands: this package
 * will export `createServer(options)`.
 */
export const SERVER_PACKAGE_PLACEHOLDER = true;
