import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { LivemodeField } from "../../shared/livemode.ts"
import { Schema } from "effect"
import { POSTING_TYPES } from "../../../domain/ledger.ts"
import { ScopeResource } from "../../shared/annotations.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { ApiTokenAuth } from "../security.ts"
import { CursorParam, Pagination } from "../transactions/Api.ts"

/** Balance of CONTRACT-v1 §7. */
export const V1Balance = Schema.Struct({
  available: Schema.Int,
  pending: Schema.Int,
  reserved: Schema.Int,
  currency: Schema.Literal("BRL"),
  updated_at: Schema.String,
  livemode: LivemodeField
}).annotations({
  identifier: "V1Balance",
  examples: [
    { available: 98_010, pending: 287_450, reserved: 0, currency: "BRL", updated_at: "2026-11-22T09:15:00-03:00" }
  ]
})

/** One posting on a balance (CONTRACT-v1 §7 "financials"). */
export const V1Movement = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal(...POSTING_TYPES),
  amount: Schema.Int.annotations({ description: "signed centavos" }),
  balance: Schema.Literal("available", "pending", "reserved"),
  transaction_hash: Schema.NullOr(Schema.String),
  withdrawal_id: Schema.NullOr(Schema.String),
  description: Schema.String,
  created_at: Schema.String
}).annotations({ identifier: "V1Movement" })

const SubaccountParam = Schema.Struct({
  subaccount_id: Schema.optional(Schema.String.annotations({ description: "a subaccount's balance instead" }))
})

export const FinancialsParams = Schema.Struct({
  start_at: Schema.optional(Schema.String.annotations({ description: "YYYY-MM-DD (São Paulo), required" })),
  end_at: Schema.optional(Schema.String.annotations({ description: "YYYY-MM-DD (São Paulo), inclusive, required" })),
  type: Schema.optional(Schema.String.annotations({ description: POSTING_TYPES.join(", ") })),
  subaccount_id: Schema.optional(Schema.String),
  page: Schema.optional(Schema.String),
  cursor: CursorParam,
  per_page: Schema.optional(Schema.String)
})

export class V1BalanceApi extends HttpApiGroup.make("v1Balance")
  .annotate(ScopeResource, "balance")
  .add(
    HttpApiEndpoint.get("balance", "/balance")
      .setUrlParams(SubaccountParam)
      .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: V1Balance }))
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "The merchant's (or a subaccount's) balances in centavos: `available` (can be withdrawn), `pending` " +
          "(sales not yet settled), `reserved` (rolling reserve and disputed money). `updated_at` is the time " +
          "of the latest posting. 404 for an unknown subaccount_id."
      )
  )
  .add(
    HttpApiEndpoint.get("financials", "/financials")
      .setUrlParams(FinancialsParams)
      .addSuccess(
        Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(V1Movement), pagination: Pagination })
      )
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "The postings on the balances whose date falls in [start_at, end_at] (São Paulo days, inclusive), " +
          "oldest first. 400 naming the parameter for a missing or malformed date, start_at after end_at, a " +
          "range over 366 days or an unknown type."
      )
  )
  .middleware(ApiTokenAuth)
  .annotate(OpenApi.Title, "Balance and financials (v1)") {}
