import type { ListFilter } from "./Page.ts"
import type { AccountId, CustomerId } from "../domain/ids.ts"
import { Context, type Effect, type Option, type Stream } from "effect"
import type { Customer } from "../domain/customer.ts"

export interface NewCustomer {
  readonly id: CustomerId
  readonly name: string
  readonly email: string
  readonly document: string
  readonly phone: string
}

export interface CustomerChanges {
  readonly name?: string | undefined
  readonly email?: string | undefined
  readonly phone?: string | undefined
}

/** Every operation is scoped by account; deleted customers are invisible to all of them. */
export class CustomerRepo extends Context.Tag("CustomerRepo")<
  CustomerRepo,
  {
    /** Inserts, or returns the live customer that already has this document (`created: false`). */
    readonly insertOrGetByDocument: (
      accountId: AccountId,
      customer: NewCustomer
    ) => Effect.Effect<{ readonly customer: Customer; readonly created: boolean }>
    /** Every live customer of the account, oldest first, read page by page (interface-v2 lists return all). */
    readonly stream: (accountId: AccountId, filter?: ListFilter) => Stream.Stream<Customer>
    readonly find: (accountId: AccountId, id: CustomerId) => Effect.Effect<Option.Option<Customer>>
    readonly update: (
      accountId: AccountId,
      id: CustomerId,
      changes: CustomerChanges
    ) => Effect.Effect<Option.Option<Customer>>
    /** Soft delete; false when there was no live customer. */
    readonly softDelete: (accountId: AccountId, id: CustomerId) => Effect.Effect<boolean>
  }
>() {}
