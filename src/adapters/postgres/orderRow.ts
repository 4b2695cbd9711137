import { Schema } from "effect"
import { CustomerId, OrderId } from "../../domain/ids.ts"
import { Order, OrderStatus } from "../../domain/order.ts"

/** An order row as the database gives it (camelCased); a row that does not decode is a defect. */
export const OrderRow = Schema.Struct({
  id: OrderId,
  customerId: CustomerId,
  amount: Schema.Int,
  status: OrderStatus,
  createdAt: Schema.DateFromSelf
})
export type OrderRow = typeof OrderRow.Type

/**
 * The columns OrderRow reads, named: a prepared `*` would fail once a migration adds one (prepared.ts).
 * Read by OrderRepoLive, and ahead by KeyAdmissionLive beside the admission's columns, none of whose
 * names they share.
 */
export const ORDER_COLUMNS = "id, customer_id, amount, status, created_at"

// The row schema checks every field the class does (`Order`'s createdAt decodes from a string, a row's is a
// Date already): the class is built without checking the same values twice on every read.
export const toOrder = (row: unknown) =>
  Order.make(Schema.decodeUnknownSync(OrderRow)(row), { disableValidation: true })
