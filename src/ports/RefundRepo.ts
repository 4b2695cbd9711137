import { Context, type Effect } from "effect"

export interface Refund {
  readonly id: string
  readonly transactionId: string
  readonly amount: number
  readonly reason: string | null
  readonly status: "PENDING" | "SUCCEEDED" | "FAILED"
  readonly createdAt: Date
  readonly completedAt: Date | null
}

export class RefundRepo extends Context.Tag("RefundRepo")<
  RefundRepo,
  {
    readonly insertPending: (
      accountId: string,
      refund: {
        readonly id: string
        readonly transactionId: string
        readonly amount: number
        readonly reason: string | null
      }
    ) => Effect.Effect<Refund>
    readonly finish: (accountId: string, id: string, status: "SUCCEEDED" | "FAILED") => Effect.Effect<Refund>
    readonly find: (accountId: string, id: string) => Effect.Effect<Refund | undefined>
  }
>() {}
