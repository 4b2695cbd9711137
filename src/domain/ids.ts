import { Schema } from "effect"
import { isUuid } from "./uuid.ts"

/**
 * Branded identifiers: a TransactionId cannot be passed where an OrderId goes, from the HTTP edge
 * (path parameters decode into them) to the SQL (rows decode into them).
 */
const id = <B extends string>(brand: B) =>
  Schema.String.pipe(Schema.filter(isUuid, { message: () => "must be a UUID" }), Schema.brand(brand))

export const AccountId = id("AccountId")
export type AccountId = typeof AccountId.Type
export const OrderId = id("OrderId")
export type OrderId = typeof OrderId.Type
export const TransactionId = id("TransactionId")
export type TransactionId = typeof TransactionId.Type
export const CustomerId = id("CustomerId")
export type CustomerId = typeof CustomerId.Type
export const RefundId = id("RefundId")
export type RefundId = typeof RefundId.Type
export const SubaccountId = id("SubaccountId")
export type SubaccountId = typeof SubaccountId.Type
/**
 * A subaccount's id as a client wrote it (any case: uuid.ts), as the ledger names its party: lower case.
 * A party is text compared exactly (docs/ledger.md "Split"), so `3F2A…` and `3f2a…` would be two
 * balances of one subaccount.
 */
export const subaccountIdOf = (raw: string): SubaccountId => SubaccountId.make(raw.toLowerCase())
export const WithdrawalId = id("WithdrawalId")
export type WithdrawalId = typeof WithdrawalId.Type
export const PaymentLinkId = id("PaymentLinkId")
export type PaymentLinkId = typeof PaymentLinkId.Type
