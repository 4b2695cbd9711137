import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { Transactional } from "../../ports/Transactional.ts"

/** `sql.withTransaction`: rolls back on any failure or defect; nested calls become savepoints. */
export const TransactionalLive = Layer.effect(
  Transactional,
  Effect.map(SqlClient.SqlClient, (sql) =>
    Transactional.of({
      run: (effect) => sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)) as typeof effect
    })
  )
)
