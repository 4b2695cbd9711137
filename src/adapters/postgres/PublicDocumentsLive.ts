import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { TransactionRecord } from "../../domain/transaction.ts"
import { AccountId } from "../../domain/ids.ts"
import { PublicDocuments } from "../../ports/PublicDocuments.ts"
import { withSpan } from "../../spans.ts"
import { deferWrite } from "./deferred.ts"

const COLUMNS = `t.id, t.origin, t.order_id, t.customer_id, t.method, t.amount, t.amount_total, t.amount_interest,
  t.buyer, t.products, t.metadata, t.comment, t.split, t.fee, t.status, t.refunded_amount, t.refund_reserved,
  t.installments, t.details, t.decline_code, t.acquirer_reference, t.acquirer, t.card_token, t.antifraud, t.paid_at,
  t.expires_at, t.created_at, t.updated_at`

const WithMerchant = Schema.Struct({
  ...TransactionRecord.fields,
  merchantName: Schema.String,
  merchantDocument: Schema.NullOr(Schema.String),
  merchantAccountId: AccountId
})

export const PublicDocumentsLive = Layer.effect(
  PublicDocuments,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return PublicDocuments.of({
      // With the transaction's other deferred writes (deferred.ts): nothing reads them before COMMIT.
      create: (transactionId, documents) =>
        deferWrite(sql, (as) => ({
          ctes: [
            [
              as("documents"),
              sql`insert into public_documents (token, transaction_id, kind)
                  select d.token, ${transactionId}, d.kind
                  from jsonb_to_recordset(${JSON.stringify(documents)}::jsonb) as d(token text, kind text)`
            ]
          ]
        })).pipe(withSpan("PublicDocuments.create")),
      find: (token, kind) =>
        sql`
          select ${sql.literal(COLUMNS)}
          from public_documents d join transactions t on t.id = d.transaction_id
          where d.token = ${token} and d.kind = ${kind}`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(TransactionRecord))),
          Effect.orDie,
          Effect.map((rows) => Option.fromNullable(rows[0])),
          withSpan("PublicDocuments.find")
        ),
      findWithMerchant: (token, kind) =>
        sql`
          select ${sql.literal(COLUMNS)}, a.name as merchant_name, a.document as merchant_document,
                 a.id as merchant_account_id
          from public_documents d
          join transactions t on t.id = d.transaction_id
          join accounts a on a.id = t.account_id
          where d.token = ${token} and d.kind = ${kind}`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(WithMerchant))),
          Effect.orDie,
          Effect.map((rows) =>
            Option.map(
              Option.fromNullable(rows[0]),
              ({ merchantAccountId, merchantDocument, merchantName, ...transaction }) => ({
                transaction,
                merchant: { name: merchantName, document: merchantDocument, accountId: merchantAccountId }
              })
            )
          ),
          withSpan("PublicDocuments.findWithMerchant")
        )
    })
  })
)
