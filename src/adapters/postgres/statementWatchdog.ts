import pg from "pg"

/**
 * How the pool bounds a database that stops answering without closing anything (a dead host, a partition,
 * a security group: packets dropped, no reset), where a statement would otherwise wait for ever and the
 * request behind it with it (docs/deployment.md "Operations"). None of them cuts a long statement that the
 * database is running: the worker's jobs, the ledger check, migrations and the advisory lock they wait on
 * share this pool, and a statement is only given up when PostgreSQL itself no longer answers.
 */
export interface Bounds {
  /**
   * A new connection, and a wait for a free one when all are in use, gives up after this
   * (`timeout exceeded when trying to connect`: 503 database_unavailable).
   */
  readonly connectMs: number
  /** A statement outstanding this long has the server asked, on a new connection, whether it is there. */
  readonly suspectAfterMs: number
  /**
   * The server must answer that connection (connected and `select 1`, or refused by PostgreSQL itself: too
   * many connections, shutting down…) within this. Silence drops every connection whose statement has been
   * outstanding since before the question: the statement fails with `PostgreSQL did not answer` (503).
   */
  readonly probeMs: number
  /** A statement outstanding when the server did answer is asked about again after this. */
  readonly recheckMs: number
}
export const BOUNDS: Bounds = { connectMs: 5_000, suspectAfterMs: 3_000, probeMs: 5_000, recheckMs: 10_000 }

/** The error a dropped connection's statements fail with (src/http/shared/outage.ts: a database outage). */
export const NO_ANSWER = "PostgreSQL did not answer"

/** pg's Client as the watchdog reads it: the statement in progress and the socket. */
interface Watched {
  readonly _activeQuery?: unknown
  readonly connection?: { readonly stream?: { readonly destroy: (error?: Error) => void } }
}

/**
 * Whether PostgreSQL answers a connection of its own within `ms`: `select 1` done, or the connection refused
 * by the server itself (a SQLSTATE: it is there, just not taking this one). A timeout, a reset, a refused or
 * unreachable address is silence. Settles once that connection is closed, so none outlives the pool.
 */
const answers = (options: pg.PoolConfig, ms: number) =>
  new Promise<boolean>((resolve) => {
    const client = new pg.Client({ ...options, keepAlive: false, application_name: "payment-gateway probe" })
    const destroy = () => (client as unknown as Watched).connection?.stream?.destroy()
    let settled = false
    const settle = (answered: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(deadline)
      // An unanswered connection is not ended politely: its goodbye would wait on the silence too.
      if (!answered) {
        destroy()
        resolve(false)
        return
      }
      let ended: NodeJS.Timeout | undefined
      void Promise.race([
        client.end().catch(() => undefined),
        new Promise((done) => (ended = setTimeout(done, ms)))
      ]).then(() => {
        clearTimeout(ended)
        destroy()
        resolve(true)
      })
    }
    const deadline = setTimeout(() => settle(false), ms)
    client.on("error", () => undefined)
    client
      .connect()
      .then(() => client.query("select 1"))
      .then(
        () => settle(true),
        (error: unknown) => settle(error instanceof pg.DatabaseError)
      )
  })

/**
 * Watches the statements of every connection of the pool (in use or idle: a statement interrupted by its
 * caller may still be outstanding on a connection given back). One outstanding for `suspectAfterMs` has the
 * server asked whether it is there; if it is silent, the connections whose statements are still the same are
 * destroyed, which fails those statements (and any queued behind them) at once and takes the connections out
 * of the pool. One question at a time. Returns the stop.
 */
export const watchStatements = (
  pool: pg.Pool,
  bounds: Bounds,
  dropped: WeakSet<object>,
  onDrop: (n: number) => void
) => {
  const outstanding = new Map<Watched, { readonly query: unknown; checkAt: number } | undefined>()
  pool.on("connect", (client) => outstanding.set(client as unknown as Watched, undefined))
  pool.on("remove", (client) => outstanding.delete(client as unknown as Watched))
  let asking: Promise<void> | undefined
  let stopped = false
  const tick = () => {
    if (asking !== undefined || stopped || pool.ending) return
    const now = Date.now()
    const due: Array<readonly [Watched, unknown]> = []
    for (const [client, seen] of outstanding) {
      const query = client._activeQuery
      if (query === null || query === undefined) outstanding.set(client, undefined)
      else if (seen?.query !== query) outstanding.set(client, { query, checkAt: now + bounds.suspectAfterMs })
      else if (now >= seen.checkAt) due.push([client, query])
    }
    if (due.length === 0) return
    asking = answers(pool.options, bounds.probeMs).then((answered) => {
      asking = undefined
      if (stopped) return
      const at = Date.now()
      let n = 0
      for (const [client, query] of due) {
        const seen = outstanding.get(client)
        if (seen === undefined || seen.query !== query) continue // answered meanwhile, or gone
        if (answered) {
          seen.checkAt = at + bounds.recheckMs
        } else {
          n++
          dropped.add(client)
          outstanding.delete(client)
          client.connection?.stream?.destroy(
            new Error(
              `${NO_ANSWER}: a statement waited ${bounds.suspectAfterMs / 1000} s and a new connection had no ` +
                `answer within ${bounds.probeMs / 1000} s`
            )
          )
        }
      }
      if (n > 0) onDrop(n)
    })
  }
  const timer = setInterval(tick, Math.max(50, Math.min(500, bounds.suspectAfterMs / 4)))
  timer.unref()
  /** Stops watching; settles once a question under way has its connection closed. */
  return (): Promise<void> => {
    stopped = true
    clearInterval(timer)
    return asking ?? Promise.resolve()
  }
}
