import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ScopeResource } from "../../shared/annotations.ts"
import { NotFound } from "../../shared/errors.ts"
import { ApiTokenAuth } from "../security.ts"

/** CONTRACT-v1 §9: the analysis of one card charge. */
export const V1Antifraud = Schema.Struct({
  transaction_hash: Schema.String,
  status: Schema.Literal("completed", "in_review").annotations({
    description: "in_review while a card charge waits for a manual decision (transaction status `antifraud`)"
  }),
  score: Schema.Int.annotations({ description: "0 (safe) to 100 (fraud): the sum of the fired rules' weights" }),
  decision: Schema.Literal("approve", "review", "reject").annotations({
    description:
      "approve (< ANTIFRAUD_REVIEW_AT, 60), review (up to ANTIFRAUD_REJECT_AT, 80), reject; after a manual " +
      "review, the decision taken"
  }),
  reason: Schema.NullOr(Schema.String).annotations({
    description:
      "the rules that fired, comma-separated (card_velocity, document_velocity, amount_above_usual, " +
      "holder_name_mismatch, disposable_email, private_ip, sandbox_fraud_card, sandbox_review_card); null when none"
  })
}).annotations({
  identifier: "V1Antifraud",
  examples: [
    {
      transaction_hash: "0c5e8f0a-6a41-4f4e-9a55-1f1b1d0c9a10",
      status: "in_review",
      score: 70,
      decision: "review",
      reason: "card_velocity, disposable_email"
    }
  ]
})

const hash = HttpApiSchema.param("transaction_hash", Schema.String)

export class V1AntifraudApi extends HttpApiGroup.make("v1Antifraud")
  .annotate(ScopeResource, "transactions")
  .add(
    HttpApiEndpoint.get("get")`/antifraud/${hash}`
      .addSuccess(Schema.Struct({ success: Schema.Literal(true), data: V1Antifraud }))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "The antifraud analysis of a card transaction")
      .annotate(
        OpenApi.Description,
        "Every card charge is scored by weighted rules (docs/antifraud.md). 404 for a PIX or billet " +
          "transaction, an unknown hash, or another account's."
      )
  )
  .middleware(ApiTokenAuth)
  .annotate(OpenApi.Title, "Antifraud (v1)") {}
