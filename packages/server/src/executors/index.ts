/** Which executors are online for each app, and what the executor side reports for metrics. */
export {
  type DirectoryApp,
  ExecutorDirectory,
  type ExecutorDirectoryOptions,
  manualAddresses,
} from './directory.js';
export { type ExecutorMetrics, NO_EXECUTOR_METRICS } from './metrics.js';
