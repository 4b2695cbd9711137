import { describe, expect, it } from "vitest"
import { instantOf } from "./instant.ts"

describe("instants written with their offset", () => {
  it("read an instant only when its day and hour exist at its own offset", () => {
    expect(instantOf("2026-02-28T23:30:00-03:00")).toEqual(new Date("2026-03-01T02:30:00Z"))
    expect(instantOf("2026-03-01T01:00:00+05:30")).toEqual(new Date("2026-02-28T19:30:00Z"))
    expect(instantOf("2024-02-29T10:00Z")).toEqual(new Date("2024-02-29T10:00:00Z"))
    for (const bad of [
      "2026-02-30T10:00:00Z",
      "2026-02-29T10:00:00Z",
      "2026-04-31T23:00:00-03:00",
      "2026-01-01T24:00:00Z"
    ]) {
      expect(instantOf(bad), bad).toBeUndefined()
    }
  })
})
