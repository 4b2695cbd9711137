import { Schema } from "effect"
import type { ListKey } from "../../ports/Page.ts"

/**
 * `nextCursor` of the paged /api lists of issue 20 (events, request log): opaque base64url of
 * `[list, created_at, id]`, where the page before stopped, so the next page is a seek on the list's index
 * whatever its depth (the v1 cursor's idea, cursor.ts, without page numbers). The list is in it so a
 * cursor of one list given to another is a 400 naming `cursor`.
 */
export type KeysetList = "events" | "request_log"

const AT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/
const ID: Record<KeysetList, RegExp> = {
  events: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  request_log: /^[1-9]\d{0,17}$/
}

/** The calendar day written in `iso` exists (JavaScript rolls 02-30 over to 03-02). */
const sameDay = (iso: string, date: Date) => {
  const [y, m, d] = iso.slice(0, 10).split("-").map(Number) as [number, number, number]
  const offsetMinutes =
    Number(iso.slice(-6, -3)) * 60 + Math.sign(Number(iso.slice(-6, -3)) || 1) * Number(iso.slice(-2))
  const local = new Date(date.getTime() + offsetMinutes * 60_000)
  return local.getUTCFullYear() === y && local.getUTCMonth() === m - 1 && local.getUTCDate() === d
}

export const encodeKeysetCursor = (list: KeysetList, key: ListKey) =>
  Buffer.from(JSON.stringify([list, key.at, key.id])).toString("base64url")

export const decodeKeysetCursor = (list: KeysetList, raw: string): ListKey | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"))
    if (!Array.isArray(value) || value.length !== 3) return undefined
    const [name, at, id] = value as Array<unknown>
    if (name !== list || typeof at !== "string" || typeof id !== "string") return undefined
    // The key goes back to PostgreSQL as ::timestamptz: an impossible instant would be a 500 there.
    if (!AT.test(at) || !ID[list].test(id)) return undefined
    // PostgreSQL writes `+00`, JavaScript reads `+00:00`; a 2026-02-30 must not reach the database.
    const iso = at.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00")
    const date = new Date(iso)
    if (Number.isNaN(date.getTime()) || !sameDay(iso, date)) return undefined
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
