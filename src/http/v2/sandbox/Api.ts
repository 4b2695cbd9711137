import { TransactionId, WithdrawalId } from "../../../domain/ids.ts"
import { WithdrawalStatus } from "../../../domain/withdrawal.ts"
import { ScopeResource } from "../../shared/annotations.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { payload } from "../../shared/payload.ts"
import { Transaction } from "../../../domain/transaction.ts"
import { BadRequest, Conflict, NotFound } from "../../shared/errors.ts"
import { ApiKeyAuth } from "../../shared/security.ts"

const id = HttpApiSchema.param("id", TransactionId)
const withdrawalId = HttpApiSchema.param("id", WithdrawalId)

/** A withdrawal as the sandbox route leaves it; the whole record is v1's `GET /withdrawals/{id}`. */
export const SandboxWithdrawal = Schema.Struct({ id: WithdrawalId, status: WithdrawalStatus }).annotations({
  identifier: "SandboxWithdrawal"
})

/** CONTRACT §7: drive a transaction as the buyer would. 404 when SANDBOX_ENABLED=false. */
export class SandboxApi extends HttpApiGroup.make("sandbox")
  .annotate(ScopeResource, "sandbox")
  .add(
    HttpApiEndpoint.post("pay")`/transactions/${id}/pay`
      .setUrlParams(
        Schema.Struct({
          date: Schema.optional(
            Schema.String.annotations({ description: "BOLETO: the day the buyer paid, YYYY-MM-DD (default today)" })
          ),
          amount: Schema.optional(
            Schema.String.annotations({
              description: "BOLETO: centavos paid (default: the amount due on that date, docs/boleto.md)"
            })
          ),
          rail: Schema.optional(
            Schema.String.annotations({
              description:
                "A bolepix (BOLETO with PIX): `barcode` (default) pays the slip at the sandbox bank (202); `pix` " +
                "pays its QR code, received at once (200). The first payment settles it; a later one by the " +
                "other rail is recorded and returned (docs/boleto.md)"
            })
          )
        })
      )
      .addSuccess(Transaction)
      .addSuccess(
        Transaction.annotations({
          description:
            "BOLETO: paid at the sandbox bank, confirmed by the boleto job after BOLETO_CONFIRMATION_DELAY_SECONDS"
        }),
        { status: 202 }
      )
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(
        OpenApi.Description,
        "PIX: PENDING → PAID now (200). BOLETO: 202, still PENDING until the " +
          "confirmation job settles it. 409 in any other state."
      )
  )
  .add(
    HttpApiEndpoint.post("expire")`/transactions/${id}/expire`
      .addSuccess(Transaction)
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Description, "PENDING → FAILED now; the order becomes EXPIRED.")
  )
  .add(
    HttpApiEndpoint.post("antifraud")`/transactions/${id}/antifraud`
      .setPayload(
        payload(
          Schema.Struct({
            decision: Schema.Literal("approve", "reject").annotations({
              description: "approve: the acquirer is asked now; reject: declined fraud_suspected"
            })
          })
        )
      )
      .addSuccess(Transaction)
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(
        OpenApi.Description,
        "Decides a card charge in manual review (ANTIFRAUD). approve → PROCESSING, then the " +
          "acquirer's answer (CAPTURED, DECLINED or FAILED); reject → DECLINED with fraud_suspected. The " +
          "analysis becomes completed with the decision. 409 in any other state; 400 naming `decision`."
      )
  )
  .add(
    HttpApiEndpoint.post("chargeback")`/transactions/${id}/chargeback`
      .setPayload(payload(Schema.Struct({ stage: Schema.Literal("open", "lost", "won") })))
      .addSuccess(Transaction)
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(
        OpenApi.Description,
        "A paid card transaction: open → PRE_CHARGEBACK (the disputed amount moves to reserved); " +
          "lost → CHARGEBACK (debited); won → PAID (money back where it came from). 409 in any other state."
      )
  )
  .add(
    HttpApiEndpoint.post("med")`/transactions/${id}/med`
      .setPayload(payload(Schema.Struct({ stage: Schema.Literal("open", "analysis", "lost", "won") })))
      .addSuccess(Transaction)
      .addError(BadRequest)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(
        OpenApi.Description,
        "A paid PIX: open → MED_RECEIVED (amount to reserved); analysis → MED_ANALYSIS; lost → " +
          "MED_REPROVED (the amount goes back to the payer); won → PAID. lost/won also from MED_RECEIVED."
      )
  )
  .add(
    HttpApiEndpoint.post("settle")`/transactions/${id}/settle`
      .addSuccess(Transaction)
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Makes the transaction's pending receivables available now (not its reserve).")
  )
  .add(
    HttpApiEndpoint.post("sendWithdrawal")`/withdrawals/${withdrawalId}/send`
      .addSuccess(SandboxWithdrawal)
      .addSuccess(SandboxWithdrawal, { status: 202 })
      .addError(BadRequest)
      .addError(NotFound)
      .annotate(
        OpenApi.Description,
        "Lets the bank day come now for a pending withdrawal (a /public/v1 withdrawal: a TED, which waits for " +
          "00:00 of the next business day when asked on a weekend or bank holiday, docs/calendar.md): 202, " +
          "still pending, and the sandbox bank pays or refuses it at once (withdraw.paid or withdraw.failed). " +
          "A withdrawal no longer pending: 200, as it is."
      )
  )
  .middleware(ApiKeyAuth)
  .prefix("/sandbox")
  .annotate(OpenApi.Title, "Sandbox") {}
