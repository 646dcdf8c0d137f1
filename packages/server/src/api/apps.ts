/**
 * Apps (XXL-JOB's executor groups): `listApps`, `getApp`, `createApp`, `updateApp`, `deleteApp`,
 * `rotateAppToken`, and what is online for one: `listAppExecutors`, `listAppHandlers`.
 * Creating, changing and deleting apps is for admins; users see the apps they have permission on.
 *
 * Each app has its own executor token (app-credentials.ts), answered once in `accessToken` by
 * `createApp` and `rotateAppToken` and never again: the server keeps it to present to the app's
 * executors, but no read of the API returns it.
 */
import { isPullAddress, isStreamAddress } from '@tickwheel/protocol';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { randomSecret } from '../security/api-tokens.js';
import type { AppGroupRow, RegistryRow } from '../store/index.js';
import { normaliseAddressList, splitAddressList } from './addresses.js';
import { recordAudit } from './audit-trail.js';
import type { Principal } from './auth.js';
import { canAccessApp } from './auth.js';
import { type ApiContext, principalOf, requireAdmin, requireVisible, SECURITY } from './context.js';
import { conflict, errorResponses, invalidField, notFound } from './errors.js';
import {
  App,
  AppExecutor,
  type AppHandlers,
  AppHandlers as AppHandlersSchema,
  type AppPatchBody,
  AppPatchBody as AppPatchSchema,
  AppQuery,
  AppWithToken,
  IdParams,
  type NewAppBody,
  NewAppBody as NewAppSchema,
  Page,
  type RotateAppTokenBody,
  RotateAppTokenBody as RotateAppTokenSchema,
} from './schemas.js';

/** Bytes of a generated app token (43 characters of base64url). */
const APP_TOKEN_BYTES = 32;
/** How long a rotation keeps the replaced token valid when the caller does not say. */
const DEFAULT_TOKEN_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** The longest overlap a rotation may give. */
const MAX_TOKEN_OVERLAP_MS = 30 * 24 * 60 * 60 * 1000;

const TAGS = ['apps'];

export function registerApps(api: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx.deps;

  api.get<{ Querystring: AppQuery }>(
    '/apps',
    {
      schema: {
        operationId: 'listApps',
        tags: TAGS,
        summary: 'List apps, with their online executors',
        security: SECURITY,
        querystring: AppQuery,
        response: { 200: Page(App), ...errorResponses(400) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const { appName, title, limit = 50, offset = 0 } = request.query;
      const filter = { ...(appName ? { appName } : {}), ...(title ? { title } : {}) };
      let rows: AppGroupRow[];
      let total: number;
      if (principal.role === 'admin') {
        [rows, total] = await Promise.all([
          store.apps.listApps({ ...filter, limit, offset }),
          store.apps.countApps(filter),
        ]);
      } else {
        // A user has permission on a handful of apps: filter them here, then page.
        const permitted = (await store.apps.listApps({ ...filter, limit: 10_000 })).filter((row) =>
          canAccessApp(principal, row.id),
        );
        rows = permitted.slice(offset, offset + limit);
        total = permitted.length;
      }
      const online = await onlineByApp(ctx);
      return {
        items: rows.map((row) =>
          toApp(row, dispatchAddresses(row, online.get(row.app_name) ?? []), ctx.deps.clock.now()),
        ),
        total,
        limit,
        offset,
      };
    },
  );

  api.get<{ Params: IdParams }>(
    '/apps/:id',
    {
      schema: {
        operationId: 'getApp',
        tags: TAGS,
        summary: 'One app, with its online executors',
        security: SECURITY,
        params: IdParams,
        response: { 200: App, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) =>
      appResource(ctx, await findAccessibleApp(ctx, principalOf(ctx, request), request.params.id)),
  );

  api.get<{ Params: IdParams }>(
    '/apps/:id/executors',
    {
      schema: {
        operationId: 'listAppExecutors',
        tags: TAGS,
        summary: "The app's online executors with their last registry heartbeat and protocol generation",
        security: SECURITY,
        params: IdParams,
        response: { 200: Type.Object({ items: Type.Array(AppExecutor) }), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const row = await findAccessibleApp(ctx, principalOf(ctx, request), request.params.id);
      return { items: await appExecutors(ctx, row) };
    },
  );

  api.get<{ Params: IdParams }>(
    '/apps/:id/handlers',
    {
      schema: {
        operationId: 'listAppHandlers',
        tags: TAGS,
        summary: "The handler names the app's online executors registered (the job form's suggestions)",
        description:
          'Tickwheel executors send their handler names with each registry heartbeat; XXL-JOB executors send none, so a job may name any handler.',
        security: SECURITY,
        params: IdParams,
        response: { 200: AppHandlersSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const row = await findAccessibleApp(ctx, principalOf(ctx, request), request.params.id);
      return appHandlers(ctx, row.app_name);
    },
  );

  api.post<{ Body: NewAppBody }>(
    '/apps',
    {
      schema: {
        operationId: 'createApp',
        tags: TAGS,
        summary: 'Create an app (admins)',
        security: SECURITY,
        description:
          "The answer's accessToken is the app's executor token, shown this once: configure the app's executors with it. With useInstallationToken the app uses the installation-wide token instead (compatibility mode) and accessToken is null.",
        body: NewAppSchema,
        response: { 201: AppWithToken, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) => {
      requireAdmin(principalOf(ctx, request), 'create apps');
      const body = request.body;
      const addressType = body.addressType ?? 'AUTO';
      const addressList = checkedAddressList(addressType, body.addressList);
      if ((await store.apps.findAppByName(body.appName)) !== undefined) {
        throw conflict(`an app named ${body.appName} already exists`, 'appName');
      }
      const now = ctx.deps.clock.now();
      const accessToken = body.useInstallationToken === true ? null : randomSecret(APP_TOKEN_BYTES);
      let row: AppGroupRow;
      try {
        row = await store.apps.createApp(
          {
            appName: body.appName,
            title: body.title,
            addressType,
            addressList: joinAddresses(addressList),
            accessToken,
            origin: body.origin ?? null,
          },
          now,
        );
      } catch (err) {
        // Created by someone else between our check and our insert (unique app_name).
        if ((await store.apps.findAppByName(body.appName)) !== undefined) {
          throw conflict(`an app named ${body.appName} already exists`, 'appName');
        }
        throw err;
      }
      await recordAudit(ctx, request, {
        action: 'CREATE',
        targetType: 'APP',
        targetId: row.id,
        appId: row.id,
        detail: {
          appName: row.app_name,
          credential: credentialOf(row),
          ...(row.origin === null ? {} : { origin: row.origin }),
        },
      });
      await ctx.deps.onAppCredentialsChanged?.();
      reply.code(201);
      return { ...(await appResource(ctx, row)), accessToken };
    },
  );

  api.post<{ Params: IdParams; Body: RotateAppTokenBody }>(
    '/apps/:id/rotate-token',
    {
      schema: {
        operationId: 'rotateAppToken',
        tags: TAGS,
        summary: 'Give an app a new executor token (admins)',
        description:
          "Answers the new token once in accessToken. The token it replaces (the app's own, or the installation token for an app in compatibility mode) stays valid until previousTokenValidUntil, so the executors can move over one by one; meanwhile the server calls each executor with the token it registered with.",
        security: SECURITY,
        params: IdParams,
        body: RotateAppTokenSchema,
        response: { 200: AppWithToken, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      requireAdmin(principalOf(ctx, request), 'rotate app tokens');
      const existing = await store.apps.findAppById(request.params.id);
      if (existing === undefined) throw notFound('app', request.params.id);
      const now = ctx.deps.clock.now();
      const until = request.body?.previousTokenValidUntil ?? now + DEFAULT_TOKEN_OVERLAP_MS;
      if (until > now + MAX_TOKEN_OVERLAP_MS) {
        throw invalidField(
          'previousTokenValidUntil',
          'previousTokenValidUntil: at most 30 days from now (the replaced token must not live on)',
        );
      }
      const accessToken = randomSecret(APP_TOKEN_BYTES);
      if (!(await store.apps.rotateAppToken(existing.id, accessToken, until, now))) {
        throw notFound('app', existing.id);
      }
      await recordAudit(ctx, request, {
        action: 'ROTATE_TOKEN',
        targetType: 'APP',
        targetId: existing.id,
        appId: existing.id,
        detail: { appName: existing.app_name, previousTokenValidUntil: until > now ? until : null },
      });
      await ctx.deps.onAppCredentialsChanged?.();
      const row = (await store.apps.findAppById(existing.id)) ?? existing;
      return { ...(await appResource(ctx, row)), accessToken };
    },
  );

  api.patch<{ Params: IdParams; Body: AppPatchBody }>(
    '/apps/:id',
    {
      schema: {
        operationId: 'updateApp',
        tags: TAGS,
        summary: "Change an app's title, addresses or origin (admins); fields left out keep their value",
        security: SECURITY,
        params: IdParams,
        body: AppPatchSchema,
        response: { 200: App, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      requireAdmin(principalOf(ctx, request), 'change apps');
      const existing = await store.apps.findAppById(request.params.id);
      if (existing === undefined) throw notFound('app', request.params.id);
      const body = request.body;
      const addressType = body.addressType ?? existing.address_type;
      const typeChanged = addressType !== existing.address_type;
      let addressList: string | null | undefined;
      if (body.addressList !== undefined || typeChanged) {
        const given =
          body.addressList ?? (addressType === 'MANUAL' ? splitAddressList(existing.address_list) : []);
        addressList = joinAddresses(checkedAddressList(addressType, given));
      }
      await store.apps.updateApp(
        existing.id,
        {
          ...(body.title === undefined ? {} : { title: body.title }),
          ...(typeChanged ? { addressType } : {}),
          ...(addressList === undefined ? {} : { addressList }),
          ...(body.origin === undefined ? {} : { origin: body.origin }),
        },
        ctx.deps.clock.now(),
      );
      await recordAudit(ctx, request, {
        action: 'UPDATE',
        targetType: 'APP',
        targetId: existing.id,
        appId: existing.id,
        detail: { appName: existing.app_name, fields: Object.keys(body) },
      });
      return appResource(ctx, (await store.apps.findAppById(existing.id)) ?? existing);
    },
  );

  api.delete<{ Params: IdParams }>(
    '/apps/:id',
    {
      schema: {
        operationId: 'deleteApp',
        tags: TAGS,
        summary: 'Delete an app that no job uses (admins)',
        security: SECURITY,
        params: IdParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      requireAdmin(principalOf(ctx, request), 'delete apps');
      const id = request.params.id;
      const outcome = await store.apps.deleteAppIfUnused(id);
      if (outcome === 'missing') throw notFound('app', id);
      if (typeof outcome === 'number') {
        throw conflict(`app ${id} is used by ${outcome} job(s); delete or move them first`);
      }
      await recordAudit(ctx, request, { action: 'DELETE', targetType: 'APP', targetId: id, appId: id });
      reply.code(204);
    },
  );
}

/** The app of `id` when it exists and the caller may see it (else 404 either way). */
export async function findAccessibleApp(
  ctx: ApiContext,
  principal: Principal,
  id: number,
): Promise<AppGroupRow> {
  const row = await ctx.deps.store.apps.findAppById(id);
  if (row === undefined) throw notFound('app', id);
  requireVisible(principal, row.id, 'app', id);
  return row;
}

/** The addresses with a live heartbeat of one app. */
export async function onlineAddresses(ctx: ApiContext, appName: string): Promise<RegistryRow[]> {
  const { store, clock, executorDeadAfterMs } = ctx.deps;
  return store.registry.listAlive(clock.now() - executorDeadAfterMs, appName);
}

/**
 * The executors an app's fires go to, by address: its registered, alive ones (AUTO), or its typed
 * list (MANUAL), each with the heartbeat and generation of its registration under any app name
 * if it has one (lastBeatAt null: it does not register; it is called as G2).
 */
async function appExecutors(ctx: ApiContext, row: AppGroupRow): Promise<AppExecutor[]> {
  const toExecutor = (entry: RegistryRow): AppExecutor => ({
    address: entry.registry_value,
    protocol: entry.protocol,
    lastBeatAt: entry.updated_at,
    transport: transportOf(entry.registry_value),
  });
  if (row.address_type !== 'MANUAL') {
    return (await onlineAddresses(ctx, row.app_name)).map(toExecutor).sort(byAddress);
  }
  const { store, clock, executorDeadAfterMs } = ctx.deps;
  const registered = new Map<string, RegistryRow>();
  for (const entry of await store.registry.listAlive(clock.now() - executorDeadAfterMs)) {
    const known = registered.get(withSlash(entry.registry_value));
    // Its own app's registration first, else the freshest under another name.
    if (known === undefined || (known.registry_key !== row.app_name && entry.updated_at > known.updated_at)) {
      registered.set(withSlash(entry.registry_value), entry);
    }
  }
  return splitAddressList(row.address_list)
    .map((address) => {
      const entry = registered.get(withSlash(address));
      return entry === undefined
        ? { address, protocol: 'G2', lastBeatAt: null, transport: 'http' as const }
        : { ...toExecutor(entry), address };
    })
    .sort(byAddress);
}

/** How the server reaches an executor registered at `address`. */
function transportOf(address: string): AppExecutor['transport'] {
  if (isPullAddress(address)) return 'http-pull';
  return isStreamAddress(address) ? 'redis' : 'http';
}

const byAddress = (a: AppExecutor, b: AppExecutor) => a.address.localeCompare(b.address);
const withSlash = (address: string) => (address.endsWith('/') ? address : `${address}/`);

/** The union of the handler names the app's online executors sent. */
async function appHandlers(ctx: ApiContext, appName: string): Promise<AppHandlers> {
  const { store, clock, executorDeadAfterMs } = ctx.deps;
  const executors = await store.registry.listAliveHandlers(clock.now() - executorDeadAfterMs, appName);
  const names = new Set<string>();
  let reporting = 0;
  for (const executor of executors) {
    if (executor.handlers === null) continue;
    reporting += 1;
    for (const name of executor.handlers) names.add(name);
  }
  return { items: [...names].sort(), onlineExecutors: executors.length, reportingExecutors: reporting };
}

async function onlineByApp(ctx: ApiContext): Promise<Map<string, string[]>> {
  const { store, clock, executorDeadAfterMs } = ctx.deps;
  const byApp = new Map<string, string[]>();
  for (const row of await store.registry.listAlive(clock.now() - executorDeadAfterMs)) {
    const list = byApp.get(row.registry_key) ?? [];
    list.push(row.registry_value);
    byApp.set(row.registry_key, list);
  }
  return byApp;
}

async function appResource(ctx: ApiContext, row: AppGroupRow): Promise<App> {
  const online = await onlineAddresses(ctx, row.app_name);
  return toApp(
    row,
    dispatchAddresses(
      row,
      online.map((entry) => entry.registry_value),
    ),
    ctx.deps.clock.now(),
  );
}

/**
 * The addresses the app's fires go to: its registered, alive executors (AUTO), or its typed list
 * (MANUAL: as in XXL-JOB, those executors are called without registering).
 */
function dispatchAddresses(row: AppGroupRow, registered: string[]): string[] {
  return row.address_type === 'MANUAL' ? splitAddressList(row.address_list) : registered;
}

function toApp(row: AppGroupRow, online: string[], nowMs: number): App {
  const previousUntil = row.previous_token_until === null ? null : Number(row.previous_token_until);
  return {
    id: row.id,
    appName: row.app_name,
    title: row.title,
    addressType: row.address_type,
    addressList: splitAddressList(row.address_list),
    onlineAddresses: online,
    onlineExecutors: online.map((address) => ({ address, transport: transportOf(address) })),
    credential: credentialOf(row),
    previousTokenValidUntil: previousUntil !== null && previousUntil > nowMs ? previousUntil : null,
    origin: row.origin,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Which token the app's executors use: its own, or the installation token (compatibility mode). */
function credentialOf(row: AppGroupRow): 'app' | 'installation' {
  return row.access_token === null ? 'installation' : 'app';
}

/** MANUAL apps need at least one http(s) address; AUTO apps take theirs from the registry. */
function checkedAddressList(addressType: 'AUTO' | 'MANUAL', list: readonly string[] | undefined): string[] {
  if (addressType === 'AUTO') {
    if (list !== undefined && list.length > 0) {
      throw invalidField(
        'addressList',
        'addressList: an AUTO app takes its addresses from the registry; use MANUAL to list them',
      );
    }
    return [];
  }
  if (list === undefined || list.length === 0) {
    throw invalidField('addressList', 'addressList: a MANUAL app needs at least one executor address');
  }
  return normaliseAddressList(list, 'addressList');
}

function joinAddresses(list: string[]): string | null {
  return list.length === 0 ? null : list.join(',');
}
