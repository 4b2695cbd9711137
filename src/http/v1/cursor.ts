import { Either } from "effect"
import type { FieldError } from "../../domain/errors.ts"
import { isUuid } from "../../domain/uuid.ts"
import type { ListKey } from "../../ports/Page.ts"
import { isKeyTimestamp } from "../shared/keyTimestamp.ts"

/**
 * `pagination.next_cursor` of the v1 lists (issue 10; docs/performance.md). CONTRACT-v1 §1 pages by
 * number, an offset whose cost grows with the depth; the cursor names the page after a full one by
 * where that page stopped, so the next page is a seek on the list's index and costs what page 1 does.
 * It is opaque to the merchant: base64url of `[list, page, per_page, created_at, id]`. The list is in
 * it so that a cursor of one list given to another is a 400, not a query on the wrong kind of id.
 */
export type CursorList = "transactions" | "financials" | "subaccounts" | "withdrawals" | "payment_links"

export interface Cursor {
  readonly page: number
  readonly perPage: number
  readonly key: ListKey
}

/** Postings have bigint ids; every other list's are UUIDs. */
const idOf: Record<CursorList, (id: string) => boolean> = {
  transactions: isUuid,
  financials: (id) => /^[1-9]\d{0,17}$/.test(id),
  subaccounts: isUuid,
  withdrawals: isUuid,
  payment_links: isUuid
}

export const encodeCursor = (list: CursorList, cursor: Cursor) =>
  Buffer.from(JSON.stringify([list, cursor.page, cursor.perPage, cursor.key.at, cursor.key.id])).toString("base64url")

/** A cursor this service wrote for `list`, or the 400 naming `cursor`. */
export const decodeCursor = (list: CursorList, raw: string): Either.Either<Cursor, FieldError> => {
  const bad = Either.left<FieldError>({
    field: "cursor",
    message: `cursor must be a pagination.next_cursor of this list (${list}) as given`
  })
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"))
  } catch {
    return bad
  }
  if (!Array.isArray(value) || value.length !== 5) return bad
  const [name, page, perPage, at, id] = value as Array<unknown>
  return name === list &&
    Number.isSafeInteger(page) &&
    (page as number) >= 2 &&
    Number.isInteger(perPage) &&
    (perPage as number) >= 1 &&
    (perPage as number) <= 100 &&
    typeof at === "string" &&
    isKeyTimestamp(at) &&
    typeof id === "string" &&
    idOf[list](id)
    ? Either.right({ page: page as number, perPage: perPage as number, key: { at, id } })
    : bad
}
