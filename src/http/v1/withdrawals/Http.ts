import { HttpApiBuilder } from "@effect/platform"
import { Effect, Either } from "effect"
import { Withdrawals } from "../../../app/Withdrawals.ts"
import { type FieldError, NotFound, ValidationFailed } from "../../../domain/errors.ts"
import { subaccountIdOf, WithdrawalId } from "../../../domain/ids.ts"
import { type BankAccount, validateBankAccount } from "../../../domain/subaccount.ts"
import { isoInSaoPaulo } from "../../../domain/time.ts"
import { isUuid } from "../../../domain/uuid.ts"
import type { WithdrawalRecord } from "../../../domain/withdrawal.ts"
import { GatewayApi } from "../../Api.ts"
import { idempotentPost } from "../../shared/idempotency.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { listWindow, paginationOf } from "../listParams.ts"
import { renderedV1 } from "../render.ts"
import { v1BankAccount } from "../subaccounts/present.ts"

const MAX_AMOUNT = 9_999_999_999

const present = (w: WithdrawalRecord) => ({
  id: w.id,
  amount: w.amount,
  status: w.status,
  bank_account: v1BankAccount(w.bankAccount),
  subaccount_id: w.subaccountId,
  created_at: isoInSaoPaulo(w.createdAt),
  paid_at: w.paidAt === null ? null : isoInSaoPaulo(w.paidAt),
  failure_reason: w.failureReason
})

export const V1WithdrawalsHttp = HttpApiBuilder.group(GatewayApi, "v1Withdrawals", (handlers) =>
  Effect.gen(function* () {
    const withdrawals = yield* Withdrawals
    return handlers
      .handle("create", ({ headers, payload }) =>
        idempotentPost(headers["idempotency-key"], (accountId, id) =>
          Effect.gen(function* () {
            const errors: Array<FieldError> = []
            const amount = payload.amount
            if (typeof amount !== "number" || !Number.isInteger(amount) || amount < 1 || amount > MAX_AMOUNT) {
              errors.push({ field: "amount", message: `amount must be an integer from 1 to ${MAX_AMOUNT} centavos` })
            }
            const sub = payload.subaccount_id
            if (sub !== undefined && sub !== null && (typeof sub !== "string" || !isUuid(sub))) {
              errors.push({ field: "subaccount_id", message: "subaccount_id must be a subaccount's id (UUID)" })
            }
            let bankAccount: BankAccount | null = null
            if (payload.bank_account !== undefined && payload.bank_account !== null) {
              const checked = validateBankAccount(payload.bank_account, "bank_account")
              if (Either.isLeft(checked)) errors.push(...checked.left)
              else bankAccount = checked.right
            }
            if (errors.length > 0) return yield* new ValidationFailed({ errors })
            const created = yield* withdrawals.create(
              accountId,
              {
                amount: amount as number,
                subaccountId: typeof sub === "string" ? subaccountIdOf(sub) : null,
                bankAccount
              },
              WithdrawalId.make(id)
            )
            return { status: 201, body: { success: true, data: present(created) } }
          }).pipe(renderedV1)
        )
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          if (!isUuid(path.id)) return yield* new NotFound({ message: "withdrawal not found" })
          return {
            success: true as const,
            data: present(yield* withdrawals.get(accountId, WithdrawalId.make(path.id)))
          }
        }).pipe(renderedV1)
      )
      .handle("list", ({ urlParams: q }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const window = listWindow("withdrawals", { page: q.page, per_page: q.per_page, cursor: q.cursor })
          if (Either.isLeft(window)) return yield* new ValidationFailed({ errors: window.left })
          // A subaccount_id that is not a UUID names no subaccount: 404, like the balance's (CONTRACT-v1 §1).
          if (q.subaccount_id !== undefined && !isUuid(q.subaccount_id)) {
            return yield* new NotFound({ message: "subaccount not found" })
          }
          const page = yield* withdrawals.page(
            accountId,
            q.subaccount_id === undefined ? undefined : subaccountIdOf(q.subaccount_id),
            window.right.range
          )
          return { success: true as const, data: page.rows.map(present), pagination: paginationOf(window.right, page) }
        }).pipe(renderedV1)
      )
  })
)
