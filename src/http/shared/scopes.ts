/**
 * Scopes of restricted keys (CLI `keys create --scopes`). A route's scope is `<resource>:read` for
 * GET and `<resource>:write` otherwise; the account's primary key has them all. `*` grants every
 * scope and `<resource>:*` both of a resource.
 */
const RESOURCES: ReadonlyArray<readonly [prefix: string, resource: string]> = [
  ["/api/customers", "customers"],
  ["/api/orders", "orders"],
  ["/api/transactions", "transactions"],
  ["/api/payment-gateway/transaction/", "transactions"],
  ["/api/payment-gateway/process", "payments"],
  ["/api/payment-gateway/refund", "refunds"],
  ["/api/payment-gateway/tokenize-card", "cards"],
  ["/api/webhooks", "webhooks"],
  ["/api/sandbox", "sandbox"]
]

export const KNOWN_SCOPES: ReadonlyArray<string> = [...new Set(RESOURCES.map(([, r]) => r))].flatMap((r) => [
  `${r}:read`,
  `${r}:write`
])

export const requiredScope = (method: string, routePath: string): string => {
  const resource = RESOURCES.find(([prefix]) => routePath.startsWith(prefix))?.[1] ?? "other"
  return `${resource}:${method === "GET" || method === "HEAD" ? "read" : "write"}`
}

export const grants = (scopes: ReadonlyArray<string> | null, needed: string): boolean => {
  if (scopes === null) return true
  const [resource] = needed.split(":")
  return scopes.includes("*") || scopes.includes(needed) || scopes.includes(`${resource}:*`)
}

export const isKnownScope = (scope: string) =>
  scope === "*" ||
  KNOWN_SCOPES.includes(scope) ||
  KNOWN_SCOPES.some((s) => s.startsWith(scope.replace(/\*$/, "")) && scope.endsWith(":*"))
