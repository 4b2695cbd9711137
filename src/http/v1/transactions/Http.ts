import { type AccountId, RefundId, TransactionId } from "../../../domain/ids.ts"
import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Either, Schema } from "effect"
import { Payments } from "../../../app/Payments.ts"
import { Refunds } from "../../../app/Refunds.ts"
import { Transactions } from "../../../app/Transactions.ts"
import { AppConfig } from "../../../config/AppConfig.ts"
import { normalizeDocument } from "../../../domain/document.ts"
import type { TransactionRecord } from "../../../domain/transaction.ts"
import { ValidationFailed, validated } from "../../../domain/errors.ts"
import type { TransactionFilter } from "../../../ports/TransactionRepo.ts"
import { GatewayApi } from "../../Api.ts"
import { idempotentPost, idempotentPresented } from "../../shared/idempotency.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { knownHash } from "../hash.ts"
import { listWindow, paginationOf } from "../listParams.ts"
import { renderedV1 } from "../render.ts"
import { CORE_METHOD, coreStatuses, V1_STATUSES } from "../words.ts"
import { V1Transaction } from "./Api.ts"
import { decodeCreate } from "./command.ts"
import { v1Transaction } from "./present.ts"
import { withLivemode } from "../../shared/livemode.ts"

export const V1TransactionsHttp = HttpApiBuilder.group(GatewayApi, "v1Transactions", (handlers) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const payments = yield* Payments
    const refunds = yield* Refunds
    const transactions = yield* Transactions
    // Live records carry `livemode: true` (http/shared/livemode.ts).
    const encodeView = (view: Parameters<typeof v1Transaction>[1]) =>
      Effect.flatMap(withLivemode(v1Transaction(config.publicBaseUrl, view)), (body) =>
        Schema.encode(V1Transaction)(body).pipe(Effect.orDie)
      )
    const present = (accountId: AccountId, id: TransactionId) =>
      Effect.flatMap(transactions.getView(accountId, id), (view) => encodeView(view))

    return handlers
      .handle("create", ({ headers, payload }) =>
        idempotentPresented(
          headers["idempotency-key"],
          (accountId, transactionId, fresh, settle) =>
            Effect.gen(function* () {
              const now = new Date(yield* Clock.currentTimeMillis)
              const command = yield* validated(decodeCreate(payload, now, config.installments))
              // Every outcome is a transaction (CONTRACT-v1 §3): refused and failed cards answer 201 too.
              return yield* payments.charge(accountId, command, TransactionId.make(transactionId), fresh, settle)
            }).pipe(renderedV1),
          (created: TransactionRecord, accountId: AccountId) =>
            Effect.gen(function* () {
              // Presented from the record the charge returned: no second read of what it just wrote.
              const view = yield* transactions.view(accountId, created)
              const data = yield* encodeView(view)
              return { status: 201, body: { success: true, data } }
            }).pipe(renderedV1)
        )
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const id = yield* knownHash(path.hash)
          return { success: true as const, data: yield* present(accountId, id) }
        }).pipe(renderedV1)
      )
      .handle("amountDue", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const id = yield* knownHash(path.hash)
          const { date, dueDate, due } = yield* transactions.amountDue(accountId, id, urlParams.date, "date")
          return {
            success: true as const,
            data: {
              hash: path.hash,
              date,
              due_date: dueDate,
              principal: due.principal,
              abatement: due.abatement,
              discount: due.discount,
              fine: due.fine,
              interest: due.interest,
              amount_due: due.total,
              days_late: due.daysLate
            }
          }
        }).pipe(renderedV1)
      )
      .handle("list", ({ urlParams: q }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          // page or cursor, per_page and the creation dates as every v1 list reads them (listParams.ts).
          const window = listWindow("transactions", q)
          const errors = Either.isLeft(window) ? [...window.left] : []
          if (q.status !== undefined && !V1_STATUSES.includes(q.status)) {
            errors.push({ field: "status", message: `status must be one of ${V1_STATUSES.join(", ")}` })
          }
          if (q.method !== undefined && !(q.method in CORE_METHOD)) {
            errors.push({ field: "method", message: "method must be one of credit_card, pix, billet" })
          }
          // An empty filter matched every transaction: a misspelt filter is never silently ignored (docs/api.md).
          if (q.document !== undefined && normalizeDocument(q.document) === "") {
            errors.push({ field: "document", message: "document must be a CPF or CNPJ (digits, punctuation allowed)" })
          }
          if (errors.length > 0 || Either.isLeft(window)) return yield* new ValidationFailed({ errors })
          const filter: TransactionFilter = {
            statuses: q.status === undefined ? undefined : coreStatuses(q.status),
            method: q.method === undefined ? undefined : CORE_METHOD[q.method as keyof typeof CORE_METHOD],
            document: q.document === undefined ? undefined : normalizeDocument(q.document),
            createdFrom: window.right.createdFrom,
            createdBefore: window.right.createdBefore
          }
          const page = yield* transactions.page(accountId, filter, window.right.range)
          const data = yield* Effect.forEach(page.rows, (view) => encodeView(view))
          return { success: true as const, data, pagination: paginationOf(window.right, page) }
        }).pipe(renderedV1)
      )
      .handle("refund", ({ headers, path, payload }) =>
        idempotentPost(headers["idempotency-key"], (accountId, refundId) =>
          Effect.gen(function* () {
            const id = yield* knownHash(path.hash)
            const errors = []
            if (payload.amount !== undefined && (!Number.isInteger(payload.amount) || payload.amount < 1)) {
              errors.push({ field: "amount", message: "amount must be a positive integer number of centavos" })
            }
            if (payload.reason !== undefined && payload.reason.length > 255) {
              errors.push({ field: "reason", message: "reason must have at most 255 characters" })
            }
            if (errors.length > 0) return yield* new ValidationFailed({ errors })
            yield* refunds.refund(
              accountId,
              { transactionId: id, amount: payload.amount, reason: payload.reason },
              RefundId.make(refundId)
            )
            return { status: 200, body: { success: true, data: yield* present(accountId, id) } }
          }).pipe(renderedV1)
        )
      )
  })
)
