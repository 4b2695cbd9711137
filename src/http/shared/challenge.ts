/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 9110 §11.6.1: a 401 must carry one), by the
 * credentials each part of the service takes (docs/api.md "Errors"):
 * - /public/v1: the API key as `Authorization: Bearer` (the recommended form; `api_token` in the query
 *   is also read);
 * - /api/auth, /api/api-keys and /api/dashboard: the login token as `Authorization: Bearer` (the dashboard
 *   refuses an API key: docs/dashboard.md);
 * - the rest of /api: the API key in `X-Api-Key`, which no registered scheme describes, so it is named
 *   by an `ApiKey` challenge with the header to send.
 */
export const challengeFor = (path: string): string =>
  path.startsWith("/public/v1")
    ? 'Bearer realm="public/v1"'
    : path.startsWith("/api/auth") || path.startsWith("/api/api-keys") || path.startsWith("/api/dashboard")
      ? 'Bearer realm="api"'
      : 'ApiKey realm="api", header="X-Api-Key"'
