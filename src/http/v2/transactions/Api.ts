import { TransactionId } from "../../../domain/ids.ts"
import { ReadsAhead, ScopeResource } from "../../shared/annotations.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Transaction } from "../../../domain/transaction.ts"
import { BadRequest, Conflict, NotFound } from "../../shared/errors.ts"
import { ApiKeyAuth } from "../../shared/security.ts"
import { TransactionsQuery } from "../listQuery.ts"

const transactionId = HttpApiSchema.param("transactionId", TransactionId)

/** What a boleto asks on a date, by its charge terms (docs/boleto.md); centavos. */
export const AmountDue = Schema.Struct({
  transactionId: Schema.String,
  date: Schema.String.annotations({ description: "the payment date asked about (São Paulo), YYYY-MM-DD" }),
  dueDate: Schema.String,
  principal: Schema.Number,
  abatement: Schema.Number,
  discount: Schema.Number,
  fine: Schema.Number,
  interest: Schema.Number,
  amountDue: Schema.Number.annotations({ description: "principal − abatement − discount + fine + interest" }),
  daysLate: Schema.Number
})

export class TransactionsApi extends HttpApiGroup.make("transactions")
  .annotate(ScopeResource, "transactions")
  .add(
    HttpApiEndpoint.get("list", "/")
      .setUrlParams(TransactionsQuery)
      .addSuccess(Schema.Array(Transaction))
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.get("get")`/${transactionId}`
      .addSuccess(Transaction)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(ReadsAhead, { kind: "transaction" as const, param: "transactionId" })
  )
  .add(
    HttpApiEndpoint.get("amountDue")`/${transactionId}/amount-due`
      .setUrlParams(
        Schema.Struct({
          date: Schema.optional(Schema.String.annotations({ description: "YYYY-MM-DD (São Paulo); default today" }))
        })
      )
      .addSuccess(AmountDue)
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(
        OpenApi.Description,
        "What a boleto asks if paid on `date`: its fine, interest, discount and abatement (docs/boleto.md); " +
          "409 `not_a_boleto` for other methods."
      )
  )
  .middleware(ApiKeyAuth)
  .prefix("/transactions")
  .annotate(OpenApi.Title, "Transactions") {}
