import { Effect, Layer } from "effect"
import pg from "pg"
import { LedgerLive } from "../../src/adapters/postgres/LedgerLive.ts"
import { makePool, PgPool, SqlLive } from "../../src/adapters/postgres/Database.ts"
import { Ids } from "../../src/ports/Ids.ts"
import { type Discrepancy, Ledger } from "../../src/ports/Ledger.ts"

/** Ledger.check (what the CLI, the hourly job and the end-of-suite check run) on one database. */
export const checkLedger = (databaseUrl: string): Promise<ReadonlyArray<Discrepancy>> =>
  Effect.runPromise(
    Effect.flatMap(Ledger, (ledger) => ledger.check).pipe(
      Effect.provide(
        LedgerLive.pipe(
          Layer.provide(Ids.Live),
          Layer.provide(SqlLive),
          Layer.provide(Layer.scoped(PgPool, makePool(databaseUrl, 2)))
        )
      ),
      Effect.scoped
    )
  )

/**
 * The reconciliation of `npm run cli -- ledger check` (src/app/Audit.ts runs the same Ledger.check),
 * over every database the test run created: the run fails if any of their books do not reconcile.
 */
export const checkLedgers = async (adminUrl: string): Promise<ReadonlyArray<Discrepancy & { database: string }>> => {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  const names = await admin
    .query<{ datname: string }>("select datname from pg_database where datname like 'gw\\_test\\_%'")
    .finally(() => admin.end())
  const found: Array<Discrepancy & { database: string }> = []
  for (const { datname } of names.rows) {
    const url = new URL(adminUrl)
    url.pathname = `/${datname}`
    const probe = new pg.Client({ connectionString: url.toString() })
    await probe.connect()
    const migrated = await probe
      .query("select to_regclass('public.ledger_postings') is not null as ok")
      .finally(() => probe.end())
    if (!migrated.rows[0].ok) continue
    for (const d of await checkLedger(url.toString())) found.push({ ...d, database: datname })
  }
  return found
}
