/**
 * `previewSchedule`: the next fire times of a schedule, computed by the same `nextFireTimes` the
 * planner uses, so what a form previews is what the server will do.
 */
import { nextFireTimes, validateSchedule } from '@tickwheel/protocol';
import type { FastifyInstance } from 'fastify';
import { type ApiContext, SECURITY } from './context.js';
import { errorResponses } from './errors.js';
import { PreviewQuery, PreviewResult } from './schemas.js';

export function registerSchedules(api: FastifyInstance, ctx: ApiContext): void {
  api.get<{ Querystring: PreviewQuery }>(
    '/schedules/preview',
    {
      schema: {
        operationId: 'previewSchedule',
        tags: ['schedules'],
        summary:
          'The next fire times of a schedule after `from` (default now). FIX_DELAY counts from `from` as if a run ended then.',
        security: SECURITY,
        querystring: PreviewQuery,
        response: { 200: PreviewResult, ...errorResponses(400) },
      },
    },
    async (request) => {
      const { scheduleType, scheduleConf = '', timeZone, count = 5 } = request.query;
      const from = request.query.from ?? ctx.deps.clock.now();
      const schedule = { scheduleType, scheduleConf, timeZone: timeZone ?? null };
      // Checked against `from`, so a schedule that never fires after it says why instead of answering [].
      validateSchedule(schedule, from);
      return { from, nextFireTimes: nextFireTimes(schedule, from, count) };
    },
  );
}
