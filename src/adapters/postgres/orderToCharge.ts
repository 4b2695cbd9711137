import { Schema } from "effect"
import { CustomerId, OrderId } from "../../domain/ids.ts"
import { Order, OrderStatus } from "../../domain/order.ts"

/**
 * The order a charge checks before any provider is asked (`OrderRepo.findToCharge`): the order, whether
 * its customer is live, and the customer's name (a PIX charge's payer). Read by OrderRepoLive, or ahead,
 * in the admission's round trip (KeyAdmissionLive, readAhead.ts; docs/performance.md "The order read with the
 * admission").
 */
export interface OrderToCharge {
  readonly order: Order
  readonly customerLive: boolean
  readonly customerName: string | null
  /** A card charge of the order is PROCESSING: its outcome unknown, the order takes no other charge. */
  readonly chargeInFlight: boolean
}

const Row = Schema.Struct({
  id: OrderId,
  customerId: CustomerId,
  amount: Schema.Int,
  status: OrderStatus,
  createdAt: Schema.DateFromSelf,
  customerLive: Schema.Boolean,
  customerName: Schema.NullOr(Schema.String),
  chargeInFlight: Schema.Boolean
})

/** The select list, from `orders o left join customers c`. */
export const TO_CHARGE_COLUMNS =
  "o.id, o.customer_id, o.amount, o.status, o.created_at, " +
  "c.deleted_at is null and c.id is not null as customer_live, c.name as customer_name, " +
  "exists (select 1 from transactions t where t.account_id = o.account_id and t.order_id = o.id " +
  "and t.status = 'PROCESSING') as charge_in_flight"

/** A row of `TO_CHARGE_COLUMNS` (camelCased by the client); a row that does not decode is a defect. */
export const toCharge = (row: unknown): OrderToCharge => {
  const { chargeInFlight, customerLive, customerName, ...order } = Schema.decodeUnknownSync(Row)(row)
  // The schema checked every field the class does: built without checking the same values twice.
  return {
    order: Order.make(order, { disableValidation: true }),
    customerLive,
    customerName: customerLive ? customerName : null,
    chargeInFlight
  }
}
