import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Idempotent, ScopeResource } from "../../shared/annotations.ts"
import { BadRequest, Conflict, NotFound, UnprocessableEntity } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { ApiTokenAuth } from "../security.ts"
import { V1Subaccount } from "../subaccounts/Api.ts"
import { CursorParam, Pagination } from "../transactions/Api.ts"

/** A withdrawal (CONTRACT-v1 §7). */
export const V1Withdrawal = Schema.Struct({
  id: Schema.String,
  amount: Schema.Int,
  status: Schema.Literal("pending", "paid", "failed"),
  bank_account: V1Subaccount.fields.bank_account,
  subaccount_id: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  paid_at: Schema.NullOr(Schema.String),
  failure_reason: Schema.NullOr(Schema.String).annotations({
    description: "why the bank refused a `failed` withdrawal (the money is back in `available`); null otherwise"
  })
}).annotations({ identifier: "V1Withdrawal" })

export const CreateWithdrawalWire = Schema.Struct({
  amount: Schema.Unknown.annotations({ jsonSchema: { type: "integer", minimum: 1, description: "centavos" } }),
  subaccount_id: Schema.optional(Schema.Unknown.annotations({ jsonSchema: { type: "string", format: "uuid" } })),
  bank_account: Schema.optional(
    Schema.Unknown.annotations({
      jsonSchema: { type: "object", description: "as a subaccount's bank_account; required for the main account" }
    })
  )
})
export type CreateWithdrawalWire = typeof CreateWithdrawalWire.Type

const Success = <A, I>(data: Schema.Schema<A, I>) => Schema.Struct({ success: Schema.Literal(true), data })
const IdempotencyHeaders = Schema.Struct({ "idempotency-key": Schema.optional(Schema.String) })
const id = HttpApiSchema.param("id", Schema.String)

export class V1WithdrawalsApi extends HttpApiGroup.make("v1Withdrawals")
  .annotate(ScopeResource, "withdrawals")
  .add(
    HttpApiEndpoint.post("create", "/withdrawals")
      .setPayload(payload(CreateWithdrawalWire))
      .setHeaders(IdempotencyHeaders)
      .annotate(Idempotent, true)
      .addSuccess(Success(V1Withdrawal), { status: 201 })
      .addError(BadRequest)
      .addError(Conflict)
      .addError(UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Withdraws `amount` centavos of the available balance (the main account's, or a subaccount's to its " +
          "registered bank account). The money leaves `available` at once; the bank pays it after " +
          "WITHDRAWAL_DELAY_SECONDS (`withdraw.paid`), or refuses it (`withdraw.failed`, the money comes back " +
          "as `withdraw_reversal`). 409 `insufficient_balance` when available cannot cover it."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/withdrawals")
      .setUrlParams(
        Schema.Struct({
          subaccount_id: Schema.optional(Schema.String),
          page: Schema.optional(Schema.String),
          cursor: CursorParam,
          per_page: Schema.optional(Schema.String)
        })
      )
      .addSuccess(
        Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(V1Withdrawal), pagination: Pagination })
      )
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        'Newest first (docs/api.md "Lists"); `subaccount_id` lists one subaccount\'s withdrawals ' +
          "(404 if the account has no such subaccount)."
      )
  )
  .add(
    HttpApiEndpoint.get("get")`/withdrawals/${id}`
      .addSuccess(Success(V1Withdrawal))
      .addError(NotFound)
      .annotate(OpenApi.Description, "The withdrawal; 404 when unknown, malformed or of another account.")
  )
  .middleware(ApiTokenAuth)
  .annotate(OpenApi.Title, "Withdrawals (v1)") {}
