import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { PublicDocuments } from "../../ports/PublicDocuments.ts"
import type { TransactionRow } from "./TransactionRepoLive.ts"

export const PublicDocumentsLive = Layer.effect(
  PublicDocuments,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return PublicDocuments.of({
      create: (token, transactionId, kind) =>
        sql`insert into public_documents (token, transaction_id, kind) values (${token}, ${transactionId}, ${kind})`.pipe(
          Effect.orDie,
          Effect.asVoid
        ),
      find: (token, kind) =>
        sql<TransactionRow>`
          select t.id, t.order_id, t.customer_id, t.method, t.amount, t.status, t.refunded_amount, t.refund_reserved, t.installments, t.details,
                 t.decline_code, t.acquirer_reference, t.paid_at, t.expires_at, t.created_at, t.updated_at
          from public_documents d join transactions t on t.id = d.transaction_id
          where d.token = ${token} and d.kind = ${kind}`.pipe(
          Effect.orDie,
          Effect.map((rows) => Option.fromNullable(rows[0]))
        )
    })
  })
)
