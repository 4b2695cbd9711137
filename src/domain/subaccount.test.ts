import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { BankAccount, subaccountExists, validateBankAccount } from "./subaccount.ts"

const valid = {
  bank_code: "001",
  agency: "1234",
  agency_digit: "x",
  account: "000123456",
  account_digit: "7",
  type: "checking"
}

const fields = (input: unknown, path = "bank_account") =>
  Either.match(validateBankAccount(input, path), { onLeft: (e) => e.map((x) => x.field), onRight: () => [] })

describe("validateBankAccount (CONTRACT-v1 §8)", () => {
  it("accepts a valid account, keeps leading zeros and upper-cases check letters", () => {
    const result = validateBankAccount(valid, "bank_account")
    expect(result).toEqual(
      Either.right({
        bankCode: "001",
        agency: "1234",
        agencyDigit: "X",
        account: "000123456",
        accountDigit: "7",
        type: "checking"
      })
    )
    // The result is what the repository stores and decodes again.
    expect(Schema.is(BankAccount)(Either.getOrThrow(result))).toBe(true)
  })

  it("agency_digit is optional: absent, null or empty is null", () => {
    for (const agency_digit of [undefined, null, ""]) {
      const result = validateBankAccount({ ...valid, agency_digit, type: "savings" }, "bank_account")
      expect(Either.getOrThrow(result)).toMatchObject({ agencyDigit: null, type: "savings" })
    }
  })

  it.each([
    ["bank_code", ["01", "0001", "abc", 1, ""]],
    ["agency", ["", "123456", "12a4", 1234]],
    ["agency_digit", ["12", "-", 1]],
    ["account", ["", "1234567890123", "12.34", 12]],
    ["account_digit", ["", "12", "-", null, undefined, 7]],
    ["type", ["current", "", "CHECKING", null, undefined, 1]]
  ] as const)("names bank_account.%s for each bad value", (key, values) => {
    for (const value of values) {
      expect(fields({ ...valid, [key]: value })).toEqual([`bank_account.${key}`])
    }
  })

  it("names every broken field at once, under the caller's path", () => {
    expect(fields({ bank_code: "1", agency: "x", account: "", type: "other" }, "withdrawal.bank_account")).toEqual([
      "withdrawal.bank_account.bank_code",
      "withdrawal.bank_account.agency",
      "withdrawal.bank_account.account",
      "withdrawal.bank_account.account_digit",
      "withdrawal.bank_account.type"
    ])
  })

  it("messages start with the field's path", () => {
    const errors = Either.getLeft(validateBankAccount({ ...valid, agency: "123456" }, "bank_account"))
    expect(errors._tag === "Some" && errors.value[0]?.message).toBe("bank_account.agency must be 1 to 5 digits")
  })

  it("something that is not an object names the path itself", () => {
    for (const input of [undefined, null]) {
      expect(validateBankAccount(input, "bank_account")).toEqual(
        Either.left([{ field: "bank_account", message: "bank_account is required" }])
      )
    }
    for (const input of ["001-1234", 42, [valid]]) expect(fields(input)).toEqual(["bank_account"])
  })
})

describe("subaccountExists", () => {
  it("is a Conflict with the contract's code", () => {
    expect(subaccountExists()).toMatchObject({ _tag: "Conflict", code: "subaccount_exists" })
  })
})
