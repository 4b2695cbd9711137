import { TransactionId } from "../../../domain/ids.ts"
import { ScopeResource } from "../../shared/annotations.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Transaction } from "../../../domain/transaction.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { ApiKeyAuth } from "../../shared/security.ts"
import { TransactionsQuery } from "../listQuery.ts"

const transactionId = HttpApiSchema.param("transactionId", TransactionId)

export class TransactionsApi extends HttpApiGroup.make("transactions")
  .annotate(ScopeResource, "transactions")
  .add(
    HttpApiEndpoint.get("list", "/")
      .setUrlParams(TransactionsQuery)
      .addSuccess(Schema.Array(Transaction))
      .addError(BadRequest)
  )
  .add(HttpApiEndpoint.get("get")`/${transactionId}`.addSuccess(Transaction).addError(BadRequest).addError(NotFound))
  .middleware(ApiKeyAuth)
  .prefix("/transactions")
  .annotate(OpenApi.Title, "Transactions") {}
