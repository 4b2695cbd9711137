import { Pool } from "undici"

/**
 * A closed-loop load generator (autocannon's model): `clients` connections, each sending its next
 * request as soon as the previous one answered, for `seconds` after a warm-up. Latencies are kept
 * whole so that p99 is exact.
 */
export interface LoadResult {
  readonly clients: number
  readonly requests: number
  readonly perSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly errors: number
  readonly statuses: Readonly<Record<string, number>>
}

export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

export const summarise = (
  clients: number,
  latencies: Array<number>,
  elapsedMs: number,
  errors: number,
  statuses: Record<string, number>
): LoadResult => {
  latencies.sort((a, b) => a - b)
  return {
    clients,
    requests: latencies.length,
    perSecond: latencies.length / (elapsedMs / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors,
    statuses
  }
}

/** Runs `once(i)` in a closed loop on `clients` workers: warm-up first (not counted), then `seconds` measured. */
export const closedLoop = async (
  clients: number,
  seconds: number,
  warmupSeconds: number,
  once: (i: number) => Promise<number | void>
): Promise<LoadResult> => {
  let i = 0
  const run = async (until: number, record: boolean, latencies: Array<number>, statuses: Record<string, number>) => {
    let errors = 0
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < until) {
          const started = performance.now()
          try {
            const status = await once(i++)
            if (record) {
              latencies.push(performance.now() - started)
              const key = String(status ?? "ok")
              statuses[key] = (statuses[key] ?? 0) + 1
            }
          } catch {
            errors += 1
          }
        }
      })
    )
    return errors
  }
  await run(performance.now() + warmupSeconds * 1000, false, [], {})
  const latencies: Array<number> = []
  const statuses: Record<string, number> = {}
  const started = performance.now()
  const errors = await run(started + seconds * 1000, true, latencies, statuses)
  return summarise(clients, latencies, performance.now() - started, errors, statuses)
}

/** An HTTP client with `connections` keep-alive connections to `origin`. */
export const http = (origin: string, connections: number) => {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 })
  return {
    request: async (method: "GET" | "POST", path: string, headers: Record<string, string>, body?: string) => {
      const response = await pool.request({ method, path, headers, ...(body === undefined ? {} : { body }) })
      const text = await response.body.text()
      if (response.statusCode >= 400) throw new Error(`${method} ${path} → ${response.statusCode} ${text}`)
      return { status: response.statusCode, text }
    },
    close: () => pool.close()
  }
}
