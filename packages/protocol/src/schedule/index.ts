// Placeholder written by the lead so the package builds while the schedule work is in progress;
// the schedules engineer replaces this whole file.
import type { ScheduleType } from '../enums.js';

export interface Schedule {
  scheduleType: ScheduleType | string;
  scheduleConf: string;
  timeZone?: string | null;
}

export function nextFireTimes(_schedule: Schedule, _fromEpochMs: number, _count: number): number[] {
  throw new Error('schedules: in progress');
}

export function validateSchedule(_schedule: Schedule, _nowEpochMs: number): void {
  throw new Error('schedules: in progress');
}
