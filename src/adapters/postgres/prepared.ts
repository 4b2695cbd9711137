import { createHash } from "node:crypto"
import type pg from "pg"

/** Statements one connection keeps prepared; beyond it (generated SQL of many shapes) they go unnamed. */
const PER_CONNECTION = 1_000

const names = new Map<string, string>()
const nameOf = (text: string) => {
  let name = names.get(text)
  if (name === undefined) {
    if (names.size >= 10 * PER_CONNECTION) names.clear()
    name = `gw_${createHash("sha1").update(text).digest("base64url")}`
    names.set(text, name)
  }
  return name
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown

/**
 * Named prepared statements for the service's parameterised SQL (issue 10, docs/performance.md).
 * @effect/sql-pg sends every statement unnamed, so PostgreSQL parses and plans it on each call; named
 * by a digest of its text, a statement is parsed once per connection and its plan reused, as the
 * raw-SQL limit of `npm run bench` does. Statements given as objects (cursors, array rows,
 * graphile-worker's) and those without parameters (BEGIN, COMMIT) pass untouched. Explicit column
 * lists keep a plan valid across migrations that add columns (PostgreSQL re-plans by itself; it
 * refuses only a changed result type). A pooler in transaction mode cannot keep a statement between
 * transactions: `DATABASE_PREPARE=false` turns this off.
 */
export const prepareStatements = (client: pg.PoolClient) => {
  // Looked up on each call, not bound once: a wrapper installed on the class later still sees every query.
  const query: Query = (...args) => (Object.getPrototypeOf(client) as { query: Query }).query.apply(client, args)
  const prepared = new Set<string>()
  ;(client as { query: Query }).query = (config, values, callback) => {
    if (typeof config === "string" && Array.isArray(values) && values.length > 0) {
      const name = nameOf(config)
      if (prepared.has(name) || prepared.size < PER_CONNECTION) {
        prepared.add(name)
        return query({ name, text: config, values }, callback)
      }
    }
    return query(config, values, callback)
  }
}
