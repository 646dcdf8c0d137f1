/**
 * The Tickwheel scheduling server. For now it exports the store (one schema on SQLite,
 * PostgreSQL and MySQL/MariaDB); `createServer(options)` joins it with the server issue.
 */
export * from './store/index.js';
