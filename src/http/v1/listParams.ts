import { Either } from "effect"
import type { FieldError } from "../../domain/errors.ts"
import { startOfDayInSaoPaulo, startOfNextDayInSaoPaulo } from "../../domain/time.ts"
import type { Page, PageRange } from "../../ports/Page.ts"
import { type CursorList, decodeCursor, encodeCursor } from "./cursor.ts"

/**
 * The query parameters every v1 list shares (CONTRACT-v1 §1): `page` from 1, `per_page` 1–100 (default
 * 20), `created_from` / `created_to` as São Paulo dates, inclusive, and `cursor` (cursor.ts) in place
 * of `page`. Each bad one is named (400).
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/
/** A real calendar date YYYY-MM-DD (2026-02-30 is not). */
export const isDate = (s: string) =>
  DATE.test(s) &&
  !Number.isNaN(new Date(`${s}T12:00:00Z`).getTime()) &&
  new Date(`${s}T12:00:00Z`).toISOString().startsWith(s)

const positive = (name: string, raw: string | undefined, fallback: number, max?: number) => {
  if (raw === undefined) return Either.right(fallback)
  const n = Number(raw)
  return /^\d+$/.test(raw) && n >= 1 && n <= (max ?? Number.MAX_SAFE_INTEGER)
    ? Either.right(n)
    : Either.left<FieldError>({
        field: name,
        message:
          max === undefined ? `${name} must be a positive integer` : `${name} must be an integer from 1 to ${max}`
      })
}

export interface ListQuery {
  readonly page?: string | undefined
  readonly cursor?: string | undefined
  readonly per_page?: string | undefined
  readonly created_from?: string | undefined
  readonly created_to?: string | undefined
}

export interface ListWindow {
  readonly list: CursorList
  readonly page: number
  readonly perPage: number
  /** The rows of the page: by offset, or after the cursor's key. */
  readonly range: PageRange
  readonly createdFrom: Date | undefined
  /** Exclusive: the start of the day after `created_to`. */
  readonly createdBefore: Date | undefined
}

/** The page and creation window of a query of `list`, or the errors of its bad parameters. */
export const listWindow = (list: CursorList, q: ListQuery): Either.Either<ListWindow, ReadonlyArray<FieldError>> => {
  const errors: Array<FieldError> = []
  // No upper bound but the integers' own: a page past the last is 200 with `data: []` (CONTRACT-v1 §1), however
  // far past; PostgreSQL's OFFSET stops at the rows there are.
  const page = positive("page", q.page, 1)
  const perPage = positive("per_page", q.per_page, 20, 100)
  if (Either.isLeft(page)) errors.push(page.left)
  if (Either.isLeft(perPage)) errors.push(perPage.left)
  for (const name of ["created_from", "created_to"] as const) {
    const value = q[name]
    if (value !== undefined && !isDate(value))
      errors.push({ field: name, message: `${name} must be a date YYYY-MM-DD` })
  }
  // A cursor names its page and page size: with another page or size it would name a page it is not.
  const cursor = q.cursor === undefined ? undefined : decodeCursor(list, q.cursor)
  if (cursor !== undefined && Either.isLeft(cursor)) errors.push(cursor.left)
  if (cursor !== undefined && q.page !== undefined)
    errors.push({ field: "cursor", message: "cursor names its own page: give cursor or page, not both" })
  if (cursor !== undefined && Either.isRight(cursor) && Either.isRight(perPage) && q.per_page !== undefined) {
    if (perPage.right !== cursor.right.perPage)
      errors.push({ field: "per_page", message: `per_page must be the cursor's (${cursor.right.perPage}) or absent` })
  }
  if (errors.length > 0 || Either.isLeft(page) || Either.isLeft(perPage) || (cursor && Either.isLeft(cursor)))
    return Either.left(errors)
  const window =
    cursor === undefined
      ? { page: page.right, perPage: perPage.right, after: undefined }
      : { page: cursor.right.page, perPage: cursor.right.perPage, after: cursor.right.key }
  return Either.right({
    list,
    page: window.page,
    perPage: window.perPage,
    range: { offset: (window.page - 1) * window.perPage, limit: window.perPage, after: window.after },
    createdFrom: q.created_from === undefined ? undefined : startOfDayInSaoPaulo(q.created_from),
    // Inclusive São Paulo days (CONTRACT-v1 §1): through the instant the next one starts.
    createdBefore: q.created_to === undefined ? undefined : startOfNextDayInSaoPaulo(q.created_to)
  })
}

/**
 * The v1 pagination object of a page, with the cursor of the next one while there is one. A page reached by a
 * cursor is a seek after the last row shown, so its page number no longer counts the rows before it once some
 * of those have left the filter (a pending charge paid meanwhile): the next cursor follows from a full page
 * alone, or a walk by cursor would end before rows that matched all along.
 */
export const paginationOf = (window: ListWindow, page: Page<unknown>) => ({
  page: window.page,
  per_page: window.perPage,
  total: page.total,
  total_pages: Math.ceil(page.total / window.perPage),
  next_cursor:
    page.next !== null && (window.range.after !== undefined || window.page * window.perPage < page.total)
      ? encodeCursor(window.list, { page: window.page + 1, perPage: window.perPage, key: page.next })
      : null
})
