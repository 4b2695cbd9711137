import { Schema } from "effect"
import { OrderStatus } from "../../domain/order.ts"
import { PaymentMethod, TransactionStatus } from "../../domain/transaction.ts"
import type { ListFilter } from "../../ports/Page.ts"
import { instantOf } from "../shared/instant.ts"

/**
 * The query of the /api lists (docs/api.md "Lists"). The spec's lists take no parameters and return
 * every record: that stays the answer without any. The filters a merchant reconciling needs are
 * optional; a malformed value or an unknown parameter is a 400 naming it (query.ts), never ignored.
 */

const DAY = /^\d{4}-\d{2}-\d{2}$/
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i

/** `YYYY-MM-DD` (a UTC day) or an ISO 8601 instant with its offset; undefined when neither. */
const parseBound = (raw: string): { readonly at: Date; readonly day: boolean } | undefined => {
  const day = DAY.test(raw)
  if (!day && !INSTANT.test(raw)) return undefined
  // 2026-02-30, as a day or in an instant, is no day: refused, not read as 2 March (instant.ts).
  const at = instantOf(day ? `${raw}T00:00:00Z` : raw)
  return at === undefined ? undefined : { at, day }
}

const Bound = Schema.String.pipe(
  Schema.filter((raw) => parseBound(raw) !== undefined, {
    message: () => "must be a date YYYY-MM-DD (UTC) or an ISO 8601 timestamp with its offset"
  })
)

export const created = {
  createdFrom: Schema.optional(
    Bound.annotations({ description: "created at or after: YYYY-MM-DD (UTC day) or ISO 8601 with offset" })
  ),
  createdTo: Schema.optional(
    Bound.annotations({
      description: "created at or before (inclusive; a date means through the end of that UTC day)"
    })
  )
}

export const CustomersQuery = Schema.Struct(created)
export const OrdersQuery = Schema.Struct({ status: Schema.optional(OrderStatus), ...created })
export const TransactionsQuery = Schema.Struct({
  status: Schema.optional(TransactionStatus),
  method: Schema.optional(PaymentMethod),
  ...created
})

const DAY_MS = 24 * 60 * 60 * 1000

/** The repository's filter for a decoded query. */
export const toListFilter = (query: {
  readonly status?: string | undefined
  readonly method?: string | undefined
  readonly createdFrom?: string | undefined
  readonly createdTo?: string | undefined
}): ListFilter => {
  const from = query.createdFrom === undefined ? undefined : parseBound(query.createdFrom)
  const to = query.createdTo === undefined ? undefined : parseBound(query.createdTo)
  return {
    status: query.status,
    method: query.method,
    createdFrom: from?.at,
    // Inclusive: through the end of the day, or through the instant's millisecond.
    createdBefore: to === undefined ? undefined : new Date(to.at.getTime() + (to.day ? DAY_MS : 1))
  }
}
