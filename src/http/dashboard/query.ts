import { Effect, Schema } from "effect"
import { type FieldError, ValidationFailed } from "../../domain/errors.ts"
import { MAX_AMOUNT } from "../../domain/order.ts"
import { startOfDayInSaoPaulo, startOfNextDayInSaoPaulo } from "../../domain/time.ts"
import { PaymentMethod, TransactionStatus } from "../../domain/transaction.ts"
import type { DashboardFilter } from "../../ports/DashboardReads.ts"
import type { ListKey } from "../../ports/Page.ts"
import { instantOf } from "../shared/instant.ts"
import { decodeKeysetCursor, encodeKeysetCursor, type KeysetList } from "../shared/keysetCursor.ts"

/**
 * The dashboard's query words (docs/dashboard.md "API"). Days are the merchant's: `YYYY-MM-DD` in
 * America/Sao_Paulo, from the instant the day starts to the instant the next one starts
 * (src/domain/time.ts), as the summary groups sales by day (DashboardReadsLive). São Paulo has kept
 * UTC−03:00 all year since 2019, so a day then starts at 03:00Z; before, a day of daylight saving started
 * at 02:00Z, and a change day had 23 or 25 hours. An ISO 8601 instant with its offset is taken as given.
 */
const DAY = /^\d{4}-\d{2}-\d{2}$/
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i
const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000

const bound = (field: string, raw: string, end: boolean, errors: Array<FieldError>): Date | undefined => {
  if (DAY.test(raw)) {
    const midnight = new Date(`${raw}T00:00:00Z`)
    if (Number.isNaN(midnight.getTime()) || !midnight.toISOString().startsWith(raw)) {
      errors.push({ field, message: `${field} must be a real day YYYY-MM-DD` })
      return undefined
    }
    // `to` is inclusive: the period runs until the next day starts.
    return end ? startOfNextDayInSaoPaulo(raw) : startOfDayInSaoPaulo(raw)
  }
  // A day or an hour that does not exist (2026-02-30T10:00:00Z) is refused, not read as another one.
  const at = INSTANT.test(raw) ? instantOf(raw) : undefined
  if (at !== undefined) return end ? new Date(at.getTime() + 1) : at
  errors.push({
    field,
    message: `${field} must be a real day YYYY-MM-DD (America/Sao_Paulo) or a real ISO 8601 instant with its offset`
  })
  return undefined
}

const text = Schema.optional(Schema.String.pipe(Schema.maxLength(200)))

export const PeriodQuery = Schema.Struct({
  from: text.annotations({ description: "first day YYYY-MM-DD (America/Sao_Paulo) or ISO 8601 instant" }),
  to: text.annotations({ description: "last day, inclusive, YYYY-MM-DD (America/Sao_Paulo) or ISO 8601 instant" })
})

export const TransactionsQuery = Schema.Struct({
  ...PeriodQuery.fields,
  status: text.annotations({ description: "one or more statuses, comma-separated (PAID,REFUNDED)" }),
  method: Schema.optional(PaymentMethod),
  amount_min: text.annotations({ description: "amount_total at least, centavos" }),
  amount_max: text.annotations({ description: "amount_total at most, centavos" }),
  document: text.annotations({ description: "the buyer's CPF or CNPJ (punctuation allowed)" }),
  metadata_key: text.annotations({ description: "a top-level metadata key; with metadata_value" }),
  metadata_value: text.annotations({ description: "the value of metadata_key, as text" }),
  limit: text.annotations({ description: "rows per page, 1 to 200 (default 50)" }),
  cursor: text.annotations({ description: "`next_cursor` of the page before, as given" })
})
export type TransactionsQuery = typeof TransactionsQuery.Type

/** The CSV takes the list's filters for a whole period, without paging. */
export const ExportQuery = Schema.Struct({
  ...PeriodQuery.fields,
  status: TransactionsQuery.fields.status,
  method: TransactionsQuery.fields.method,
  amount_min: TransactionsQuery.fields.amount_min,
  amount_max: TransactionsQuery.fields.amount_max,
  document: TransactionsQuery.fields.document,
  metadata_key: TransactionsQuery.fields.metadata_key,
  metadata_value: TransactionsQuery.fields.metadata_value
})

export const CustomersQuery = Schema.Struct({
  search: text.annotations({ description: "CPF/CNPJ, part of the name, or the email" }),
  limit: TransactionsQuery.fields.limit,
  cursor: TransactionsQuery.fields.cursor
})

/**
 * `nextCursor`: the shared keyset cursor of /api's lists (`[list, created_at as PostgreSQL's text, id]`,
 * src/http/shared/keysetCursor.ts), so that the dashboard refuses what the other lists refuse (an
 * impossible instant, which PostgreSQL would answer with an error, a 500) and a list's cursor given to
 * another list; the statement's ids are its postings' bigints, the others' UUIDs.
 */
export const encodeCursor = (list: KeysetList, key: ListKey | null) =>
  key === null ? null : encodeKeysetCursor(list, key)

const cursorOf = (list: KeysetList, raw: string | undefined, errors: Array<FieldError>): ListKey | undefined => {
  if (raw === undefined) return undefined
  const key = decodeKeysetCursor(list, raw)
  if (key === undefined)
    errors.push({ field: "cursor", message: "cursor must be a next_cursor of this list, as given" })
  return key
}

const limitOf = (raw: string | undefined, errors: Array<FieldError>) => {
  if (raw === undefined) return 50
  const n = Number(raw)
  if (/^\d{1,3}$/.test(raw) && n >= 1 && n <= 200) return n
  errors.push({ field: "limit", message: "limit must be an integer from 1 to 200" })
  return 50
}

const amountOf = (field: string, raw: string | undefined, errors: Array<FieldError>) => {
  if (raw === undefined) return undefined
  if (/^\d{1,10}$/.test(raw) && Number(raw) <= MAX_AMOUNT) return Number(raw)
  errors.push({ field, message: `${field} must be an integer number of centavos from 0 to ${MAX_AMOUNT}` })
  return undefined
}

const STATUSES = new Set<string>(TransactionStatus.literals)

/** The period a query names; the default is the last 30 days (to now). */
export const periodOf = (
  query: { readonly from?: string | undefined; readonly to?: string | undefined },
  now: Date,
  errors: Array<FieldError>
) => {
  const from = query.from === undefined ? undefined : bound("from", query.from, false, errors)
  const before = query.to === undefined ? undefined : bound("to", query.to, true, errors)
  if (from !== undefined && before !== undefined && from >= before) {
    errors.push({ field: "to", message: "to must not be before from" })
  }
  return { from, before, now }
}

/**
 * The repository's filter for a transactions query, or the 400 naming every broken parameter; a page's
 * own errors found first (`errors`) are named with them.
 */
export const filterOf = (
  query: typeof ExportQuery.Type,
  now: Date,
  errors: Array<FieldError> = []
): Effect.Effect<DashboardFilter, ValidationFailed> => {
  const { before, from } = periodOf(query, now, errors)
  const statuses = query.status?.split(",").map((s) => s.trim().toUpperCase())
  if (statuses?.some((s) => !STATUSES.has(s))) {
    errors.push({ field: "status", message: `status must be among ${TransactionStatus.literals.join(", ")}` })
  }
  if ((query.metadata_key === undefined) !== (query.metadata_value === undefined)) {
    errors.push({
      field: query.metadata_key === undefined ? "metadata_key" : "metadata_value",
      message: "metadata_key and metadata_value go together"
    })
  }
  const document = query.document?.replace(/[.\-/\s]/g, "").toUpperCase()
  if (document !== undefined && !/^([0-9]{11}|[0-9A-Z]{12}[0-9]{2})$/.test(document)) {
    errors.push({ field: "document", message: "document must be a CPF (11 digits) or a CNPJ (14 characters)" })
  }
  const amountMin = amountOf("amount_min", query.amount_min, errors)
  const amountMax = amountOf("amount_max", query.amount_max, errors)
  if (errors.length > 0) return Effect.fail(new ValidationFailed({ errors }))
  return Effect.succeed({
    statuses: statuses as DashboardFilter["statuses"],
    method: query.method,
    createdFrom: from,
    createdBefore: before,
    amountMin,
    amountMax,
    document,
    metadata:
      query.metadata_key !== undefined && query.metadata_value !== undefined
        ? { key: query.metadata_key, value: query.metadata_value }
        : undefined
  })
}

/** A page of `list`: its cursor and length, or the 400 naming them (and the `errors` found before). */
export const pageOf = (
  list: KeysetList,
  query: {
    readonly limit?: string | undefined
    readonly cursor?: string | undefined
  },
  errors: Array<FieldError> = []
): Effect.Effect<{ readonly after: ListKey | undefined; readonly limit: number }, ValidationFailed> => {
  const after = cursorOf(list, query.cursor, errors)
  const limit = limitOf(query.limit, errors)
  return errors.length > 0 ? Effect.fail(new ValidationFailed({ errors })) : Effect.succeed({ after, limit })
}

/** The summary's period: `from`..`to` days, default the last 30 days of São Paulo up to now. */
export const summaryPeriod = (
  query: typeof PeriodQuery.Type,
  now: Date
): Effect.Effect<{ readonly from: Date; readonly before: Date }, ValidationFailed> => {
  const errors: Array<FieldError> = []
  const { before, from } = periodOf(query, now, errors)
  if (errors.length > 0) return Effect.fail(new ValidationFailed({ errors }))
  const end = before ?? now
  const start = from ?? new Date(end.getTime() - 30 * DAY_MS)
  // 366 days, one of which may have had 25 hours (the end of a daylight saving, before 2019).
  if (end.getTime() - start.getTime() > 366 * DAY_MS + HOUR_MS) {
    return Effect.fail(ValidationFailed.one("from", "a summary covers at most 366 days"))
  }
  return Effect.succeed({ from: start, before: end })
}
