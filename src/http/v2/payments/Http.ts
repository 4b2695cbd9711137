import { RefundId, TransactionId } from "../../../domain/ids.ts"
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Schema } from "effect"
import type { TransactionRecord } from "../../../domain/transaction.ts"
import { Cards } from "../../../app/Cards.ts"
import { Payments } from "../../../app/Payments.ts"
import { Refunds } from "../../../app/Refunds.ts"
import { Transactions } from "../../../app/Transactions.ts"
import { AppConfig } from "../../../config/AppConfig.ts"
import { GatewayApi } from "../../Api.ts"
import { idempotentPost, idempotentPresented } from "../../shared/idempotency.ts"
import { rendered } from "../render.ts"
import { withLivemode } from "../../shared/livemode.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { PaymentResult, RefundResult } from "./Api.ts"
import { paymentResult, transactionDetail } from "./present.ts"
import { refusedAs422 } from "./refusal.ts"

export const PaymentsHttp = HttpApiBuilder.group(GatewayApi, "payments", (handlers) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const payments = yield* Payments
    const refunds = yield* Refunds
    const cards = yield* Cards
    const transactions = yield* Transactions

    return handlers
      .handle("process", ({ headers, payload }) =>
        idempotentPresented(
          headers["idempotency-key"],
          (accountId, transactionId, fresh, settle) =>
            payments.charge(accountId, payload, TransactionId.make(transactionId), fresh, settle).pipe(rendered),
          (t: TransactionRecord) =>
            refusedAs422(t).pipe(
              rendered,
              Effect.flatMap((t) => withLivemode(paymentResult(config.publicBaseUrl, t))),
              Effect.flatMap((result) => Schema.encode(PaymentResult)(result).pipe(Effect.orDie)),
              Effect.map((body) => ({ status: 201, body }))
            )
        )
      )
      .handle("tokenize", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => cards.tokenize(accountId, payload)).pipe(rendered)
      )
      .handle("refund", ({ headers, payload }) =>
        idempotentPost(headers["idempotency-key"], (accountId, refundId) =>
          refunds.refund(accountId, payload, RefundId.make(refundId)).pipe(
            rendered,
            Effect.flatMap(({ reason, refundedAt, transaction: t }) =>
              withLivemode({
                transactionId: t.id,
                status: t.status,
                method: t.method,
                // What the buyer was charged (present.ts `paymentResult`).
                amount: t.amountTotal,
                refundedAmount: t.refundedAmount,
                ...(reason === null ? {} : { reason }),
                refundedAt: refundedAt.toISOString()
              })
            ),
            Effect.flatMap((result) => Schema.encode(RefundResult)(result).pipe(Effect.orDie)),
            Effect.map((body) => ({ status: 200, body }))
          )
        )
      )
      .handle("transaction", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => transactions.get(accountId, path.transactionId)).pipe(
          Effect.flatMap((t) => withLivemode(transactionDetail(config.publicBaseUrl, t))),
          rendered
        )
      )
  })
)
