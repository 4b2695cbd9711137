import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Layer, Schema } from "effect"
import { LedgerChecks } from "../../ports/LedgerChecks.ts"
import { traced } from "./traced.ts"

const Row = Schema.Struct({ imbalance: Schema.Number, checkedAt: Schema.DateFromSelf })
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

/** The one row of `ledger_last_check` (migration 0054), replaced by each check. */
export const LedgerChecksLive = Layer.effect(
  LedgerChecks,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return LedgerChecks.of(
      traced("LedgerChecks", {
        record: (imbalance, discrepancies) =>
          sql`
            insert into ledger_last_check (imbalance_centavos, discrepancies, checked_at)
            values (${imbalance}, ${discrepancies}, now())
            on conflict (only_row) do update
              set imbalance_centavos = excluded.imbalance_centavos, discrepancies = excluded.discrepancies,
                  checked_at = excluded.checked_at
            returning imbalance_centavos as imbalance, checked_at`.pipe(
            Effect.flatMap(decodeRows),
            Effect.orDie,
            Effect.map((rows) => rows[0]!)
          ),
        last: sql`select imbalance_centavos as imbalance, checked_at from ledger_last_check`.pipe(
          Effect.flatMap(decodeRows),
          Effect.orDie,
          Effect.map(Arr.head)
        )
      })
    )
  })
)
