import { HttpApiBuilder } from "@effect/platform"
import { Effect, Either } from "effect"
import { Balances } from "../../../app/Balances.ts"
import { NotFound, ValidationFailed, type FieldError } from "../../../domain/errors.ts"
import { subaccountIdOf } from "../../../domain/ids.ts"
import { MERCHANT, POSTING_TYPES, type StatementPostingType } from "../../../domain/ledger.ts"
import { daysBetween } from "../../../domain/calendar.ts"
import { isoInSaoPaulo, startOfDayInSaoPaulo, startOfNextDayInSaoPaulo } from "../../../domain/time.ts"
import { isUuid } from "../../../domain/uuid.ts"
import { GatewayApi } from "../../Api.ts"
import { livemode, livemodeOf } from "../../shared/livemode.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { isDate, listWindow, paginationOf } from "../listParams.ts"
import { renderedV1 } from "../render.ts"

/** A subaccount_id that is not a UUID names no subaccount: 404 (CONTRACT-v1 §1). */
const partyOf = (raw: string | undefined) =>
  raw === undefined
    ? Effect.succeed(null)
    : isUuid(raw)
      ? Effect.succeed(subaccountIdOf(raw))
      : Effect.fail(new NotFound({ message: "subaccount not found" }))

export const V1BalanceHttp = HttpApiBuilder.group(GatewayApi, "v1Balance", (handlers) =>
  Effect.gen(function* () {
    const balances = yield* Balances
    return handlers
      .handle("balance", ({ urlParams }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const b = yield* balances.balance(accountId, yield* partyOf(urlParams.subaccount_id))
          return {
            success: true as const,
            data: {
              available: b.available,
              pending: b.pending,
              reserved: b.reserved,
              currency: "BRL" as const,
              updated_at: isoInSaoPaulo(b.updatedAt),
              // The balance of the key's mode: each mode has its own books (http/shared/livemode.ts).
              ...livemodeOf(yield* livemode)
            }
          }
        }).pipe(renderedV1)
      )
      .handle("financials", ({ urlParams: q }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const errors: Array<FieldError> = []
          const window = listWindow("financials", { page: q.page, per_page: q.per_page, cursor: q.cursor })
          if (Either.isLeft(window)) errors.push(...window.left)
          for (const name of ["start_at", "end_at"] as const) {
            const value = q[name]
            if (value === undefined) errors.push({ field: name, message: `${name} is required (YYYY-MM-DD)` })
            else if (!isDate(value)) errors.push({ field: name, message: `${name} must be a date YYYY-MM-DD` })
          }
          if (q.type !== undefined && !(POSTING_TYPES as ReadonlyArray<string>).includes(q.type)) {
            errors.push({ field: "type", message: `type must be one of ${POSTING_TYPES.join(", ")}` })
          }
          if (errors.length === 0 && q.start_at! > q.end_at!) {
            errors.push({ field: "start_at", message: "start_at must not be after end_at" })
          }
          const from = errors.length === 0 ? startOfDayInSaoPaulo(q.start_at!) : new Date(0)
          // Through the end of end_at: the next São Paulo day's start (a day is 23 or 25 hours on a DST change).
          const before = errors.length === 0 ? startOfNextDayInSaoPaulo(q.end_at!) : new Date(0)
          if (errors.length === 0 && daysBetween(q.start_at!, q.end_at!) + 1 > 366) {
            errors.push({ field: "end_at", message: "the range from start_at to end_at must be at most 366 days" })
          }
          if (errors.length > 0 || Either.isLeft(window)) return yield* new ValidationFailed({ errors })
          const subaccount = yield* partyOf(q.subaccount_id)
          const page = yield* balances.financials(
            accountId,
            subaccount,
            { party: subaccount ?? MERCHANT, from, before, type: q.type as StatementPostingType | undefined },
            window.right.range
          )
          return {
            success: true as const,
            data: page.rows.map((p) => ({
              id: p.id,
              type: p.type,
              amount: p.amount,
              balance: p.book,
              transaction_hash: p.transactionId,
              withdrawal_id: p.withdrawalId,
              description: p.description,
              created_at: isoInSaoPaulo(p.createdAt)
            })),
            pagination: paginationOf(window.right, page)
          }
        }).pipe(renderedV1)
      )
  })
)
