import { SCHEDULE_TYPES } from '@tickwheel/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiServer } from './helpers/api-server.js';

/** The operations the server issue names; later issues add more, each tested where it is added. */
const OPERATION_IDS = [
  'login',
  'listApps',
  'getApp',
  'createApp',
  'updateApp',
  'deleteApp',
  'listJobs',
  'getJob',
  'createJob',
  'updateJob',
  'deleteJob',
  'startJob',
  'stopJob',
  'triggerJob',
  'previewSchedule',
  'listFires',
  'getFire',
  'getFireLog',
  'killFire',
  'createApiToken',
  'getDashboard',
];

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, { schema: { properties: Record<string, { enum?: string[] }> } }> };
}

let api: ApiHarness;
let doc: {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, unknown>;
};
let operations: Array<{ method: string; path: string; op: Operation }>;

beforeAll(async () => {
  api = await startApiServer();
  const res = await api.call('GET', '/api/v1/openapi.json');
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toContain('application/json');
  doc = JSON.parse(res.body);
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method, path, op })),
  );
});
afterAll(async () => {
  await api.close();
});

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1.0', () => {
    expect(doc.openapi).toBe('3.1.0');
  });

  it('lists every named operation exactly once, and gives every operation a unique operationId', () => {
    const ids = operations.map((o) => o.op.operationId);
    for (const id of OPERATION_IDS)
      expect(
        ids.filter((x) => x === id),
        id,
      ).toHaveLength(1);
    expect(ids.every((id) => typeof id === 'string' && id !== '')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every operation tags and its security: none for login, bearer or cookie for the rest', () => {
    for (const { op } of operations) {
      expect(op.tags?.length, op.operationId).toBeGreaterThan(0);
      if (op.operationId === 'login') expect(op.security).toEqual([]);
      else expect(op.security, op.operationId).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
    }
    expect(doc.components).toMatchObject({
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer' },
        cookieAuth: { type: 'apiKey', in: 'cookie', name: 'tw_session' },
      },
    });
  });

  it('describes requests with the schemas that validate them', () => {
    const createJob = operations.find((o) => o.op.operationId === 'createJob')!;
    expect(createJob).toMatchObject({ method: 'post', path: '/api/v1/jobs' });
    const schema = createJob.op.requestBody!.content['application/json']!.schema;
    expect(schema.properties.scheduleType!.enum).toEqual([...SCHEDULE_TYPES]);
    expect(schema.properties.executorParam).toMatchObject({ maxLength: 65_535 });
  });
});
