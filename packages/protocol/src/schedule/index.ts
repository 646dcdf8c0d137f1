export { nextFireTimes, type Schedule } from './next-fire-times.js';
export { validateSchedule } from './validate-schedule.js';
