/**
 * Scopes of restricted keys (CLI `keys create --scopes`). A route's scope is `<resource>:read` for
 * GET and `<resource>:write` otherwise; the account's primary key has them all. `*` grants every
 * scope and `<resource>:*` both of a resource. The resource of a route is its ScopeResource annotation.
 * The rule is applied in the database with the key lookup and the rate limit (api_key_admit, migration
 * 0010_admission), in one round trip.
 */
/** The resources of restricted keys; each route names its own with the ScopeResource annotation. */
const RESOURCES = [
  "customers",
  "orders",
  "transactions",
  "payments",
  "refunds",
  "cards",
  "webhooks",
  "sandbox",
  "subaccounts",
  "balance",
  "withdrawals",
  "events",
  "logs",
  "payment_links"
]

export const KNOWN_SCOPES: ReadonlyArray<string> = RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`])

export const requiredScope = (method: string, resource: string): string =>
  `${resource}:${method === "GET" || method === "HEAD" ? "read" : "write"}`

export const isKnownScope = (scope: string) =>
  scope === "*" ||
  KNOWN_SCOPES.includes(scope) ||
  KNOWN_SCOPES.some((s) => s.startsWith(scope.replace(/\*$/, "")) && scope.endsWith(":*"))
