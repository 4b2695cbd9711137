import { Schema } from "effect"
import type { ListKey } from "../../ports/Page.ts"
import { isKeyTimestamp } from "./keyTimestamp.ts"

/**
 * `nextCursor` of the keyset-paged lists of /api (issue 20): opaque base64url of `[list, created_at, id]`,
 * where the page before stopped, so the next page is a seek on the list's index whatever its depth (the v1
 * cursor's idea, cursor.ts, without page numbers). The list is in it so a cursor of one list given to
 * another is a 400 naming `cursor`. The events and the request log (v2 and the dashboard's pages), and the
 * dashboard's transactions, customers, statement (`financials`), withdrawals and subaccounts
 * (docs/dashboard.md "Keyset pages").
 */
export type KeysetList =
  "events" | "request_log" | "transactions" | "customers" | "financials" | "withdrawals" | "subaccounts"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
// Ids that are a bigint's text: a request log entry's, a ledger posting's.
const SERIAL = /^[1-9]\d{0,17}$/
const ID: Record<KeysetList, RegExp> = {
  events: UUID,
  request_log: SERIAL,
  transactions: UUID,
  customers: UUID,
  financials: SERIAL,
  withdrawals: UUID,
  subaccounts: UUID
}

export const encodeKeysetCursor = (list: KeysetList, key: ListKey) =>
  Buffer.from(JSON.stringify([list, key.at, key.id])).toString("base64url")

export const decodeKeysetCursor = (list: KeysetList, raw: string): ListKey | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"))
    if (!Array.isArray(value) || value.length !== 3) return undefined
    const [name, at, id] = value as Array<unknown>
    if (name !== list || typeof at !== "string" || typeof id !== "string") return undefined
    // The key goes back to PostgreSQL as ::timestamptz: an instant it refuses would be a 500 there.
    if (!isKeyTimestamp(at) || !ID[list].test(id)) return undefined
    return { at, id }
  } catch {
    return undefined
  }
}

/** The `cursor` query parameter of `list`: a `nextCursor` of that list as given. */
export const KeysetCursor = (list: KeysetList) =>
  Schema.String.pipe(
    Schema.filter((raw) => decodeKeysetCursor(list, raw) !== undefined, {
      message: () => `must be a nextCursor of this list (${list}) as given`
    })
  ).annotations({ description: "the `nextCursor` of the previous page, as given" })

/** `limit`: 1–100, default 20. */
export const PageLimit = Schema.NumberFromString.pipe(
  Schema.int(),
  Schema.between(1, 100, { message: () => "must be an integer from 1 to 100" })
).annotations({ description: "page size, 1–100 (default 20)" })
