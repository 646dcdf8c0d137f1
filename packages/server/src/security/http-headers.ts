/**
 * The security headers every HTTP answer of the server carries, the console's pages, the REST
 * API, the ops endpoints and the executor API alike:
 *
 * - `Content-Security-Policy`: `default-src 'none'; frame-ancestors 'none'` on every answer
 *   that is not a console page (JSON, text, metrics, the console's assets), which loads nothing;
 *   the console's scope puts `consoleContentSecurityPolicy` on its HTML page (console-static.ts);
 * - `X-Frame-Options: DENY` (`frame-ancestors 'none'` for browsers without CSP 2), so no page
 *   of another site can frame the console and trick a click;
 * - `X-Content-Type-Options: nosniff`, so a run log or a script served as text is never run as
 *   script or rendered as HTML;
 * - `Referrer-Policy: no-referrer`: the console's URLs (job and fire ids, filters) are not sent
 *   to anyone;
 * - `Cross-Origin-Opener-Policy` and `Cross-Origin-Resource-Policy: same-origin`: another
 *   site's window gets no handle on the console's, nor embeds its answers;
 * - `Strict-Transport-Security` only on an answer to a request that came over HTTPS: on a TLS
 *   socket, or through a trusted proxy's `X-Forwarded-Proto` (the server's `trustProxy`, as for
 *   the sign-in limit's client address). Browsers ignore it over plain HTTP (RFC 6797), and a
 *   client the server does not trust cannot make it claim HTTPS.
 *
 * A hook rather than @fastify/helmet: HSTS has to follow the request's protocol, the console's
 * policy carries the hash of its page's inline script (read from the build at start), and helmet
 * would add headers for cases the server does not have.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** What an answer that is not a console page may load: nothing. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * One year, for this host only: includeSubDomains (or preload) would decide for every name under
 * the operator's domain, which is the operator's call (their proxy can send it).
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

const FIXED_HEADERS = {
  'content-security-policy': API_CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
} as const;

/**
 * Adds the headers to every answer of `app`. Call it on the root instance before anything is
 * registered, so every scope (and the 404 handler) inherits the hook; `request.protocol` honours
 * the instance's `trustProxy`.
 *
 * @example
 * const app = Fastify({ trustProxy });
 * registerSecurityHeaders(app);
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(FIXED_HEADERS);
    if (request.protocol === 'https') reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  });
}

/**
 * The console's policy: its own origin only, and of that only the kinds it uses (checked in
 * Chromium by test/security/console-renders-under-csp.test.ts):
 * - scripts from the origin, plus the inline scripts of `indexHtml` by their SHA-256 (the page
 *   asks `/api/v1/me` while the app loads), no `eval`;
 * - styles from the origin and inline: antd and CodeMirror write their CSS into `<style>`
 *   elements at run time (a nonce would need a page rendered per request);
 * - images from the origin and `data:` URLs (the favicon and CodeMirror's SVG markers);
 * - requests (`fetch`) to the origin; no fonts, frames, workers, objects, or `<base>`; forms post
 *   to the origin; no site may frame it.
 */
export function consoleContentSecurityPolicy(indexHtml: string): string {
  const scriptHashes = inlineScripts(indexHtml).map((script) => `'sha256-${sha256Base64(script)}'`);
  return [
    "default-src 'none'",
    ["script-src 'self'", ...scriptHashes].join(' '),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The bodies of the `<script>` elements without `src`, as the browser hashes them. */
function inlineScripts(html: string): string[] {
  const scripts: string[] = [];
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    const attributes = match[1] ?? '';
    if (/\bsrc\s*=/i.test(attributes)) continue;
    scripts.push(match[2] ?? '');
  }
  return scripts;
}

function sha256Base64(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}
