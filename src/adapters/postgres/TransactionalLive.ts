import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { Transactional } from "../../ports/Transactional.ts"
import { withDeferredBatch, withDeferredWrites } from "./deferred.ts"

/**
 * `sql.withTransaction`: rolls back on any failure or defect; nested calls become savepoints. The
 * writes deferred inside (deferred.ts) go in one statement before COMMIT. `batch`: deferred writes only,
 * as one statement without a transaction around it (deferred.ts `withDeferredBatch`).
 */
export const TransactionalLive = Layer.effect(
  Transactional,
  Effect.map(SqlClient.SqlClient, (sql) =>
    Transactional.of({
      run: (effect) =>
        sql
          .withTransaction(withDeferredWrites(sql)(effect))
          .pipe(Effect.catchTag("SqlError", Effect.die)) as typeof effect,
      batch: withDeferredBatch(sql)
    })
  )
)
