import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { encodeCursor, filterOf, pageOf, summaryPeriod } from "./query.ts"

const NOW = new Date("2026-11-25T15:00:00Z")
const run = <A, E>(e: Effect.Effect<A, E>) => Effect.runSync(Effect.either(e))

describe("the dashboard's query words (docs/dashboard.md)", () => {
  it("a day is São Paulo's: from its 03:00Z to the next day's, `to` inclusive", () => {
    const f = run(filterOf({ from: "2026-11-01", to: "2026-11-30" }, NOW))
    expect(Either.getOrThrow(f)).toMatchObject({
      createdFrom: new Date("2026-11-01T03:00:00Z"),
      createdBefore: new Date("2026-12-01T03:00:00Z")
    })
  })

  it("a day of the daylight-saving years is São Paulo's too: 2018-12-01 from 02:00Z, 2019-02-16 for 25 hours", () => {
    expect(Either.getOrThrow(run(filterOf({ from: "2018-12-01", to: "2018-12-01" }, NOW)))).toMatchObject({
      createdFrom: new Date("2018-12-01T02:00:00Z"),
      createdBefore: new Date("2018-12-02T02:00:00Z")
    })
    expect(Either.getOrThrow(run(filterOf({ from: "2019-02-16", to: "2019-02-16" }, NOW)))).toMatchObject({
      createdFrom: new Date("2019-02-16T02:00:00Z"),
      createdBefore: new Date("2019-02-17T03:00:00Z")
    })
    // 366 days, from a day of summer time to one after it ended: 366 × 24 hours and one.
    expect(Either.isRight(run(summaryPeriod({ from: "2018-02-17", to: "2019-02-17" }, NOW)))).toBe(true)
    expect(Either.isLeft(run(summaryPeriod({ from: "2018-02-17", to: "2019-02-18" }, NOW)))).toBe(true)
  })

  it("names every broken parameter at once, the page's with the filter's", () => {
    const errors: Array<{ field: string; message: string }> = []
    void pageOf("transactions", { limit: "500", cursor: "bm9wZQ" }, errors)
    const f = run(
      filterOf({ from: "2026-02-30", status: "PAID,NOPE", document: "123", metadata_key: "k" }, NOW, errors)
    )
    expect(Either.isLeft(f) && f.left.errors.map((e) => e.field)).toEqual([
      "cursor",
      "limit",
      "from",
      "status",
      "metadata_value",
      "document"
    ])
  })

  it("takes several statuses, a CNPJ with punctuation and an amount range", () => {
    const f = Either.getOrThrow(
      run(
        filterOf({ status: "paid, refunded", document: "11.222.333/0001-81", amount_min: "0", amount_max: "100" }, NOW)
      )
    )
    expect(f).toMatchObject({
      statuses: ["PAID", "REFUNDED"],
      document: "11222333000181",
      amountMin: 0,
      amountMax: 100
    })
  })

  it("a cursor it wrote goes back as the same key, to its own list only", () => {
    const key = { at: "2026-01-01 00:00:00.000051+00", id: "1ca3ae58-4a45-4581-9d14-a7cebe65b65f" }
    const page = Either.getOrThrow(
      run(pageOf("transactions", { cursor: encodeCursor("transactions", key)!, limit: "10" }))
    )
    expect(page).toEqual({ after: key, limit: 10 })
    expect(Either.isLeft(run(pageOf("customers", { cursor: encodeCursor("transactions", key)! })))).toBe(true)
    // The statement's postings are keyed by bigint ids.
    const posting = { at: "2026-01-01 00:00:00.000051+00", id: "4711" }
    expect(
      Either.getOrThrow(run(pageOf("financials", { cursor: encodeCursor("financials", posting)! }))).after
    ).toEqual(posting)
  })

  it("refuses an impossible day, in a cursor or in an instant bound, naming it", () => {
    const impossible = Buffer.from(
      JSON.stringify(["transactions", "2026-02-30 10:00:00+00", "1ca3ae58-4a45-4581-9d14-a7cebe65b65f"])
    ).toString("base64url")
    const page = run(pageOf("transactions", { cursor: impossible }))
    expect(Either.isLeft(page) && page.left.errors.map((e) => e.field)).toEqual(["cursor"])
    const f = run(filterOf({ from: "2026-02-30T10:00:00Z", to: "2026-04-31T23:00:00-03:00" }, NOW))
    expect(Either.isLeft(f) && f.left.errors.map((e) => e.field)).toEqual(["from", "to"])
    expect(Either.getOrThrow(run(filterOf({ from: "2026-02-28T23:30:00-03:00" }, NOW))).createdFrom).toEqual(
      new Date("2026-03-01T02:30:00Z")
    )
  })

  it("the summary defaults to the last 30 days and refuses more than 366", () => {
    expect(Either.getOrThrow(run(summaryPeriod({}, NOW)))).toEqual({
      from: new Date("2026-10-26T15:00:00Z"),
      before: NOW
    })
    expect(Either.isLeft(run(summaryPeriod({ from: "2024-01-01", to: "2026-01-01" }, NOW)))).toBe(true)
  })
})
