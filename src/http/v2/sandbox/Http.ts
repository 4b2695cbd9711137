import { isDate } from "../../../domain/calendar.ts"
import { ValidationFailed } from "../../../domain/errors.ts"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { Sandbox } from "../../../app/Sandbox.ts"
import { toTransaction, Transaction, type TransactionSummary } from "../../../domain/transaction.ts"
import { GatewayApi } from "../../Api.ts"
import { SandboxWithdrawal } from "./Api.ts"
import { rendered } from "../render.ts"
import { CurrentPrincipal } from "../../shared/security.ts"

export const SandboxHttp = HttpApiBuilder.group(GatewayApi, "sandbox", (handlers) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandbox
    const encode = Schema.encode(Transaction)
    const encodeWithdrawal = Schema.encode(SandboxWithdrawal)
    // The sandbox acts in test mode only (a live key gets 404 before this runs).
    const toTestTransaction = (t: TransactionSummary) => toTransaction(t, false)
    return handlers
      .handle("pay", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const amount = urlParams.amount === undefined ? undefined : Number(urlParams.amount)
          if (amount !== undefined && !(Number.isSafeInteger(amount) && amount > 0)) {
            return yield* ValidationFailed.one("amount", "amount must be an integer number of centavos > 0")
          }
          if (urlParams.date !== undefined && !isDate(urlParams.date)) {
            return yield* ValidationFailed.one("date", "date must be YYYY-MM-DD")
          }
          const rail = urlParams.rail
          if (rail !== undefined && rail !== "barcode" && rail !== "pix") {
            return yield* ValidationFailed.one("rail", "rail must be barcode or pix")
          }
          const { settled, transaction } = yield* sandbox.pay(accountId, path.id, {
            date: urlParams.date,
            amount,
            rail
          })
          if (settled) return toTestTransaction(transaction)
          // A boleto is only paid at the bank; the confirmation job settles it later.
          return yield* encode(toTestTransaction(transaction)).pipe(
            Effect.flatMap((body) => HttpServerResponse.json(body, { status: 202 })),
            Effect.orDie
          )
        }).pipe(rendered)
      )
      .handle("chargeback", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => sandbox.chargeback(accountId, path.id, payload.stage)).pipe(
          Effect.map(toTestTransaction),
          rendered
        )
      )
      .handle("med", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => sandbox.med(accountId, path.id, payload.stage)).pipe(
          Effect.map(toTestTransaction),
          rendered
        )
      )
      .handle("settle", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => sandbox.settle(accountId, path.id)).pipe(
          Effect.map(toTestTransaction),
          rendered
        )
      )
      .handle("expire", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) => sandbox.expire(accountId, path.id)).pipe(
          Effect.map(toTestTransaction),
          rendered
        )
      )
      .handle("sendWithdrawal", ({ path }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const { id, status } = yield* sandbox.sendWithdrawal(accountId, path.id)
          if (status !== "pending") return { id, status }
          // Pending: the bank job pays or refuses it next (docs/calendar.md).
          return yield* encodeWithdrawal({ id, status }).pipe(
            Effect.flatMap((body) => HttpServerResponse.json(body, { status: 202 })),
            Effect.orDie
          )
        }).pipe(rendered)
      )
      .handle("antifraud", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, ({ accountId }) =>
          sandbox.antifraud(accountId, path.id, payload.decision)
        ).pipe(Effect.map(toTestTransaction), rendered)
      )
  })
)
