import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import type { AccountId } from "../../domain/ids.ts"
import { Mode } from "../../domain/mode.ts"
import { Tenancy } from "../../ports/Modes.ts"
import { traced } from "./traced.ts"

const Row = Schema.Struct({ mode: Mode })
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

/** Bounds the process's memory of modes; past it the oldest tenant is read again when next seen. */
const KEPT = 100_000

/** A tenant's mode never changes (migration 0018): each is read once per process and kept. */
export const TenancyLive = Layer.effect(
  Tenancy,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const known = new Map<AccountId, Mode>()
    return Tenancy.of(
      traced("Tenancy", {
        modeOf: (accountId) => {
          const mode = known.get(accountId)
          if (mode !== undefined) return Effect.succeed(mode)
          return sql`select mode from accounts where id = ${accountId}`.pipe(
            Effect.flatMap(decodeRows),
            Effect.orDie,
            Effect.flatMap((rows) =>
              rows[0] === undefined
                ? Effect.dieMessage(`no tenant ${accountId}: its mode is unknown`)
                : Effect.sync(() => {
                    if (known.size >= KEPT) known.delete(known.keys().next().value!)
                    known.set(accountId, rows[0]!.mode)
                    return rows[0]!.mode
                  })
            )
          )
        }
      })
    )
  })
)
