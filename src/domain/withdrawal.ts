import { Schema } from "effect"
import type { EventType } from "./events.ts"
import { AccountId, SubaccountId, WithdrawalId } from "./ids.ts"
import { BankAccount } from "./subaccount.ts"
import { isoInSaoPaulo } from "./time.ts"

export const WithdrawalStatus = Schema.Literal("pending", "paid", "failed")
export type WithdrawalStatus = typeof WithdrawalStatus.Type

/** A withdrawal of available money to a bank account (CONTRACT-v1 §7). */
export const WithdrawalRecord = Schema.Struct({
  id: WithdrawalId,
  accountId: AccountId,
  subaccountId: Schema.NullOr(SubaccountId),
  amount: Schema.Number,
  status: WithdrawalStatus,
  bankAccount: BankAccount,
  failureReason: Schema.NullOr(Schema.String),
  paidAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type WithdrawalRecord = typeof WithdrawalRecord.Type

/**
 * The body of `withdraw.paid` / `withdraw.failed` (CONTRACT-v1 §5). Withdrawals exist only in
 * /public/v1, whose contract fixes this shape, so the body is frozen when the event is recorded (a live
 * tenant's says `livemode: true` once sent or shown: EventPayloads).
 */
export const withdrawalEventBody = (
  name: Extract<EventType, "withdraw.paid" | "withdraw.failed">,
  w: WithdrawalRecord,
  at: Date
) => ({
  event: name,
  created_at: isoInSaoPaulo(at),
  data: {
    id: w.id,
    amount: w.amount,
    status: w.status,
    paid_at: w.paidAt === null ? null : isoInSaoPaulo(w.paidAt),
    subaccount_id: w.subaccountId,
    failure_reason: w.failureReason
  }
})
