import { resolveServerOptions } from '../../src/options.js';

/**
 * Every monitor's timings as the server resolves them by default (options.ts): a test building a
 * monitor directly spreads its part first and then sets the timings it shortens.
 */
export const MONITOR_TIMINGS = resolveServerOptions({ env: {} }).monitors;
