import { SqlError } from "@effect/sql/SqlError"
import { Cause } from "effect"
import { describe, expect, it } from "vitest"
import { failureReason } from "./failureReason.ts"

describe("failureReason (a failed job's line)", () => {
  it("names the failure and the database error it wraps, with its SQLSTATE", () => {
    const pg = Object.assign(new Error("deadlock detected"), { code: "40P01" })
    const cause = Cause.die(new SqlError({ cause: pg, message: "Failed to execute statement" }))
    expect(failureReason(cause)).toBe("SqlError: Failed to execute statement ← deadlock detected (40P01)")
  })
  it("says a typed failure's tag and message, and an interruption as such", () => {
    expect(failureReason(Cause.fail({ _tag: "NotFound", message: "transaction not found" }))).toBe(
      "NotFound: transaction not found"
    )
    expect(failureReason(Cause.interrupt(Symbol() as never))).toBe("interrupted")
  })
  it("never carries a card number or a secret a provider's error quoted, and stays short", () => {
    const quoted = new Error(`acquirer answered 400: {"CardNumber":"4111111111111111","SecurityCode":"123"}`)
    const reason = failureReason(Cause.die(quoted))
    expect(reason).not.toContain("4111111111111111")
    expect(reason).not.toContain('"123"')
    expect(failureReason(Cause.die(new Error("x".repeat(5_000)))).length).toBeLessThanOrEqual(500)
  })
})
