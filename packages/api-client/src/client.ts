/**
 * The REST API client: openapi-fetch typed with the generated `paths`, whose error answers and
 * failed calls reject with an `ApiError`, and `call`, which turns an answer into its data.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { ApiError, noAnswer, refusalOf, SERVER_CALL_FAILED } from './api-error.js';
import type { paths } from './schema.js';

/** The typed client: `GET`, `POST`, `PUT`, `PATCH`, `DELETE` of the API's paths, and `use`. */
export type ApiClient = Client<paths>;

export interface ApiClientOptions {
  /**
   * The server's base URL (`http://127.0.0.1:8080/`; a path prefix is kept), or `''` for the page's
   * own origin in a browser.
   */
  baseUrl: string;
  /** An API token (`tickwheel token create`), sent as `authorization: Bearer <token>`. Default none. */
  token?: string | undefined;
  /** Headers sent with every request. Default none. */
  headers?: Record<string, string>;
  /** The fetch every request goes through (one that adds a timeout, say). Default `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Middleware, in the order openapi-fetch runs it: `onRequest` in this order, `onResponse` and
   * `onError` in reverse, all before the client's own (which makes the `ApiError`s): an `onError`
   * that returns an `ApiError` chooses the message of a call that got no answer.
   */
  middleware?: Middleware[];
}

/**
 * A client of the API at `baseUrl`. Its calls resolve with `{ data, response }` for a success and
 * reject with an `ApiError` otherwise (an error answer, no answer, a success whose body is not
 * JSON); `call` unwraps the data.
 *
 * @example
 * const api = createApiClient({ baseUrl: 'http://127.0.0.1:8080/', token: process.env.TICKWHEEL_TOKEN });
 * const { items } = await call(api.GET('/api/v1/jobs', { params: { query: { appId: 1 } } }));
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined && options.token !== '') headers.authorization = `Bearer ${options.token}`;
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  // Registered first, so its onResponse and onError run last: the caller's middleware still sees
  // every answer (the console's sees each 401) and may name a failure before this one does.
  client.use(readAnswers, ...(options.middleware ?? []));
  return client;
}

interface Answer<T> {
  data?: T;
  response: Response;
}

/**
 * The data of a call of a client from `createApiClient` (undefined for a 204).
 * @throws ApiError when the call did not succeed; status 0 when no answer came.
 *
 * @example
 * const job = await call(api.GET('/api/v1/jobs/{id}', { params: { path: { id: 7 } } }));
 */
export async function call<T>(answer: Promise<Answer<T>>): Promise<T> {
  try {
    return (await answer).data as T;
  } catch (err) {
    // Anything else failed after the answer began: its body broke off, or timed out while read.
    throw err instanceof ApiError ? err : noAnswer(err);
  }
}

/**
 * Turns what openapi-fetch would resolve with `{ error }`, or reject with as a fetch failure, into a
 * rejection with an `ApiError` made where the request and the answer are both at hand.
 */
const readAnswers: Middleware = {
  async onResponse({ request, response, options }) {
    if (!response.ok) throw refusalOf(request, response.status, await response.text());
    if (options.parseAs === 'json') await requireJson(request, response);
    return undefined;
  },
  onError({ error }) {
    return error instanceof ApiError ? error : noAnswer(error);
  },
};

/**
 * A success whose body is not JSON did not come from the API (a proxy's page, a wrong --url): it
 * is refused here with the status and path, rather than as a bare syntax error from the parse.
 */
async function requireJson(request: Request, response: Response): Promise<void> {
  const text = await response.clone().text();
  if (text === '') return;
  try {
    JSON.parse(text);
  } catch {
    throw new ApiError(
      `${request.method} ${new URL(request.url).pathname} answered ${response.status} with a body that is not JSON`,
      { status: response.status, code: SERVER_CALL_FAILED },
    );
  }
}
