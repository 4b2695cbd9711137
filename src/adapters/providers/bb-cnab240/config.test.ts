import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { cnabConfig } from "./config.ts"

const dir = mkdtempSync(join(tmpdir(), "cnab-config-"))
const GOOD: Record<string, string> = {
  CNAB_AGREEMENT: "1234567",
  CNAB_AGENCY: "1234-5",
  CNAB_ACCOUNT: "123456-X",
  CNAB_COMPANY_DOCUMENT: "11.222.333/0001-81",
  CNAB_COMPANY_NAME: " Payment Gateway ",
  CNAB_REMESSA_DIR: dir,
  CNAB_RETORNO_DIR: dir
}

const decode = (env: Record<string, string>) =>
  Effect.runSync(
    Effect.either(Effect.withConfigProvider(cnabConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))
  )

describe("CNAB_* configuration (docs/configuration.md)", () => {
  it("decodes the agreement, its digits and the cycle's defaults", () => {
    const config = decode(GOOD)
    if (Either.isLeft(config)) throw new Error(String(config.left))
    expect(config.right).toEqual({
      agreement: {
        agreement: "1234567",
        wallet: "17",
        walletVariation: "019",
        agency: "1234",
        agencyDigit: "5",
        account: "123456",
        accountDigit: "X",
        companyDocument: "11222333000181",
        companyName: "Payment Gateway"
      },
      remessaDir: dir,
      retornoDir: dir,
      remessaEveryMs: 3_600_000,
      pollEveryMs: 60_000,
      firstRetorno: 1
    })
  })

  it.each([
    ["CNAB_AGREEMENT", "12345", "7-digit convênio"],
    ["CNAB_AGENCY", "12345", "check digit"],
    ["CNAB_COMPANY_DOCUMENT", "11.222.333/0001-82", "CPF or CNPJ"],
    ["CNAB_REMESSA_DIR", join(dir, "missing"), "existing directory"],
    ["CNAB_RETORNO_POLL_SECONDS", "0", "positive"]
  ])("a bad %s stops start-up naming it", (variable, value, words) => {
    const config = decode({ ...GOOD, [variable]: value })
    expect(Either.isLeft(config)).toBe(true)
    const message = String(Either.isLeft(config) ? config.left : "")
    expect(message).toContain(variable)
    expect(message).toContain(words)
  })

  it("a missing agreement is named", () => {
    const { CNAB_AGREEMENT: _, ...rest } = GOOD
    const config = decode(rest)
    expect(String(Either.isLeft(config) ? config.left : "")).toContain("CNAB_AGREEMENT")
  })
})
