import { describe, expect, it } from "vitest"
import { decodeKeysetCursor, encodeKeysetCursor } from "./keysetCursor.ts"

const ID = "0b6f3c1e-8f4a-4c59-9d57-8a1e1b2c3d4e"
const raw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

describe("keyset cursors of the /api lists", () => {
  it("round-trip PostgreSQL's own timestamp text, whatever its offset", () => {
    for (const at of ["2026-11-25 14:57:01.123456+00", "2026-11-25 11:57:01-03", "2026-11-25 20:27:01.5+05:30"]) {
      expect(decodeKeysetCursor("events", encodeKeysetCursor("events", { at, id: ID }))).toEqual({ at, id: ID })
    }
  })
  it("refuse another list's cursor, impossible instants, bad ids and garbage", () => {
    expect(
      decodeKeysetCursor("request_log", encodeKeysetCursor("events", { at: "2026-11-25 14:57:01+00", id: ID }))
    ).toBeUndefined()
    for (const bad of [
      raw(["events", "2026-02-30 10:00:00+00", ID]),
      raw(["events", "2026-11-25 25:00:00+00", ID]),
      raw(["events", "2026-11-25 10:00:00+00", "1"]),
      raw(["events", "2026-11-25 10:00:00+00"]),
      "bogus",
      ""
    ]) {
      expect(decodeKeysetCursor("events", bad), bad).toBeUndefined()
    }
    expect(decodeKeysetCursor("request_log", raw(["request_log", "2026-11-25 10:00:00+00", "42"]))).toEqual({
      at: "2026-11-25 10:00:00+00",
      id: "42"
    })
  })
})
