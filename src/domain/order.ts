import { CustomerId, OrderId } from "./ids.ts"
import { Schema } from "effect"

export const OrderStatus = Schema.Literal("PENDING", "PAID", "CANCELLED", "EXPIRED")
export type OrderStatus = typeof OrderStatus.Type

/** Largest amount a boleto can carry (its amount field has 10 digits); the gateway's ceiling for every method. */
export const MAX_AMOUNT = 9_999_999_999

/**
 * Largest quantity of one item of a transaction's products or a payment link's items: a line's total
 * (quantity × unit price) is shown on the checkout page and must stay an exact integer of centavos,
 * and the interfaces' schemas take safe integers only (docs/CONTRACT-v1.md §3; docs/payment-links.md:
 * a link's items become its visits' products, so both take the same bound).
 */
export const MAX_QUANTITY = 1_000_000

export class Order extends Schema.Class<Order>("Order")({
  id: OrderId,
  customerId: CustomerId,
  amount: Schema.Int,
  status: OrderStatus,
  createdAt: Schema.Date
}) {}

/** Only a PENDING order can be paid: PAID, CANCELLED and EXPIRED are final for a new charge (409). */
export const isPayable = (status: OrderStatus) => status === "PENDING"
