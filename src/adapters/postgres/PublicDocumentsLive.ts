import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { TransactionRecord } from "../../domain/transaction.ts"
import { PublicDocuments } from "../../ports/PublicDocuments.ts"

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
        sql`
          select t.id, t.origin, t.order_id, t.customer_id, t.method, t.amount, t.amount_total, t.amount_interest,
                 t.buyer, t.products, t.metadata, t.comment, t.status, t.refunded_amount, t.refund_reserved,
                 t.installments, t.details, t.decline_code, t.acquirer_reference, t.paid_at, t.expires_at,
                 t.created_at, t.updated_at
          from public_documents d join transactions t on t.id = d.transaction_id
          where d.token = ${token} and d.kind = ${kind}`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(TransactionRecord))),
          Effect.orDie,
          Effect.map((rows) => Option.fromNullable(rows[0])),
          Effect.withSpan("PublicDocuments.find")
        )
    })
  })
)
