import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { Admission, RecordToRead } from "../../ports/Admission.ts"
import { aheadIn, decodeAdmissionRows, toAdmission } from "./admissionRow.ts"
import { batchedByKey } from "./batched.ts"
import type { ReadAhead } from "./readAhead.ts"
import { CUSTOMER_COLUMNS, toCustomer } from "./customerRow.ts"
import { ORDER_COLUMNS, toOrder } from "./orderRow.ts"
import { COLUMNS as TRANSACTION_COLUMNS, toTransactionRecord } from "./transactionRow.ts"

/**
 * Each kind of record a route may read ahead: its table, the columns and decoder its repository reads
 * it with, and what else makes it visible there (a deleted customer is not found).
 */
const RECORDS: Record<
  RecordToRead["kind"],
  { table: string; columns: string; visible: string; decode: (row: unknown) => unknown }
> = {
  customer: { table: "customers", columns: CUSTOMER_COLUMNS, visible: "and r.deleted_at is null", decode: toCustomer },
  order: { table: "orders", columns: ORDER_COLUMNS, visible: "", decode: toOrder },
  transaction: { table: "transactions", columns: TRANSACTION_COLUMNS, visible: "", decode: toTransactionRecord }
}

/** A request of the key with this digest needing this scope, maybe reading a record of `read.kind`. */
interface Asking {
  readonly digest: Uint8Array
  readonly neededScope: string
  readonly read: RecordToRead | undefined
}

/** Its admission, and the record read ahead for it to keep: none when it read nothing (not asked, or not admitted). */
interface Admitted {
  readonly admission: Option.Option<Admission>
  readonly ahead: Option.Option<ReadAhead>
}

/**
 * The admissions of requests with neither an idempotency claim nor an order to read (KeyAdmissionLive).
 * The rate limit serialises a key's admissions on its lock (migration 0040): this process sends one
 * statement per key, scope and kind of record read at a time, for every request of it that waits, which
 * api_key_admit answers as it would have one by one (0042; docs/performance.md "Admissions in batches").
 * Its rows are numbered in the order it took the requests (the accepted first, the last slot last), the
 * n-th for the n-th request; a request that got its slot and names a record reads it, in the key's
 * account only, in the same statement.
 */
export const admitTogether = (sql: SqlClient.SqlClient) =>
  batchedByKey(
    (asking: Asking) =>
      `${Buffer.from(asking.digest).toString("hex")} ${asking.neededScope} ${asking.read?.kind ?? ""}`,
    (askings: ReadonlyArray<Asking>): Effect.Effect<ReadonlyArray<Admitted>> => {
      const [first] = askings
      const record = first!.read === undefined ? undefined : RECORDS[first!.read.kind]
      const ids = askings.map((asking) => asking.read?.id ?? null)
      const ahead =
        record === undefined
          ? sql``
          : sql`left join lateral (
            select ${sql.literal(record.columns)} from ${sql.literal(record.table)} r
            where r.account_id = f.account_id and r.id = (${ids}::uuid[])[f.turn] ${sql.literal(record.visible)}
              and f.granted and f.allowed
          ) c on true`
      return sql`select f.key_id, f.account_id, a.mode, f.scopes, f.rate_limit, f.granted, f.allowed, f.remaining,
          f.reset_ms ${record === undefined ? sql`` : sql`, c.*`}
        from (
          select f.*, row_number() over (order by f.allowed desc, f.remaining desc) as turn
          from api_key_admit(${Buffer.from(first!.digest)}, ${first!.neededScope}, interval '60 seconds',
            ${askings.length}) f
        ) f
        join accounts a on a.id = f.account_id ${ahead}
        order by f.turn`.pipe(
        Effect.orDie,
        // No rows for an unknown key: none for any of its requests.
        Effect.map((raw) => {
          const rows = decodeAdmissionRows(raw)
          return askings.map(({ read }, i) => {
            const row = rows[i]
            return {
              admission: Option.map(Option.fromNullable(row), toAdmission),
              ahead:
                record !== undefined && read !== undefined && row !== undefined && row.granted && row.allowed
                  ? Option.some({
                      kind: read.kind,
                      accountId: row.accountId,
                      id: read.id,
                      found: aheadIn(raw[i], record.decode)
                    })
                  : Option.none()
            }
          })
        })
      )
    }
  )
