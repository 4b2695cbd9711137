import { Either } from "effect"
import type { FieldError } from "../../domain/errors.ts"
import { startOfDayInSaoPaulo } from "../../domain/time.ts"
import type { ListKey } from "../../ports/TransactionRepo.ts"

/**
 * The query parameters every v1 list shares (CONTRACT-v1 §1): `page` from 1, `per_page` 1–100 (default
 * 20), `created_from` / `created_to` as São Paulo dates, inclusive. Each bad one is named (400).
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/
/** A real calendar date YYYY-MM-DD (2026-02-30 is not). */
export const isDate = (s: string) =>
  DATE.test(s) &&
  !Number.isNaN(new Date(`${s}T12:00:00Z`).getTime()) &&
  new Date(`${s}T12:00:00Z`).toISOString().startsWith(s)

const positive = (name: string, raw: string | undefined, fallback: number, max: number) => {
  if (raw === undefined) return Either.right(fallback)
  const n = Number(raw)
  return /^\d+$/.test(raw) && n >= 1 && n <= max
    ? Either.right(n)
    : Either.left<FieldError>({ field: name, message: `${name} must be an integer from 1 to ${max}` })
}

export interface ListQuery {
  readonly page?: string | undefined
  readonly per_page?: string | undefined
  readonly created_from?: string | undefined
  readonly created_to?: string | undefined
}

export interface ListWindow {
  readonly page: number
  readonly perPage: number
  readonly createdFrom: Date | undefined
  /** Exclusive: the start of the day after `created_to`. */
  readonly createdBefore: Date | undefined
}

/** The page and creation window of a list query, or the errors of its bad parameters. */
export const listWindow = (q: ListQuery): Either.Either<ListWindow, ReadonlyArray<FieldError>> => {
  const errors: Array<FieldError> = []
  const page = positive("page", q.page, 1, 1_000_000)
  const perPage = positive("per_page", q.per_page, 20, 100)
  if (Either.isLeft(page)) errors.push(page.left)
  if (Either.isLeft(perPage)) errors.push(perPage.left)
  for (const name of ["created_from", "created_to"] as const) {
    const value = q[name]
    if (value !== undefined && !isDate(value))
      errors.push({ field: name, message: `${name} must be a date YYYY-MM-DD` })
  }
  if (errors.length > 0 || Either.isLeft(page) || Either.isLeft(perPage)) return Either.left(errors)
  return Either.right({
    page: page.right,
    perPage: perPage.right,
    createdFrom: q.created_from === undefined ? undefined : startOfDayInSaoPaulo(q.created_from),
    createdBefore:
      q.created_to === undefined ? undefined : new Date(startOfDayInSaoPaulo(q.created_to).getTime() + 86_400_000)
  })
}

/** The v1 pagination object of a page. */
export const paginationOf = (window: ListWindow, total: number) => ({
  page: window.page,
  per_page: window.perPage,
  total,
  total_pages: Math.ceil(total / window.perPage)
})

const AT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * `pagination.next_cursor` (issue 10): the page it opens and where the page before it stopped, opaque
 * to the merchant. Passed back as `?cursor=`, the next page is read by keyset, whose time does not grow
 * with the page number as `?page=` (an offset) does.
 */
export const encodeCursor = (page: number, key: ListKey) =>
  Buffer.from(JSON.stringify([page, key.at, key.id])).toString("base64url")

/** A cursor this service wrote, or the 400 naming `cursor`. */
export const decodeCursor = (
  raw: string
): Either.Either<{ readonly page: number; readonly key: ListKey }, FieldError> => {
  const bad = Either.left<FieldError>({ field: "cursor", message: "cursor must be a pagination.next_cursor as given" })
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"))
    if (!Array.isArray(value) || value.length !== 3) return bad
    const [page, at, id] = value as [unknown, unknown, unknown]
    return Number.isInteger(page) &&
      (page as number) >= 2 &&
      (page as number) <= 1_000_000 &&
      typeof at === "string" &&
      AT.test(at) &&
      typeof id === "string" &&
      UUID.test(id)
      ? Either.right({ page: page as number, key: { at, id } })
      : bad
  } catch {
    return bad
  }
}
