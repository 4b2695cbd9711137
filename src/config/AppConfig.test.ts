import { ConfigProvider, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { loadAppConfig } from "./AppConfig.ts"

const load = (env: Record<string, string>) =>
  Effect.runPromise(
    loadAppConfig.pipe(
      Effect.withConfigProvider(
        ConfigProvider.fromMap(
          new Map(
            Object.entries({
              NODE_ENV: "production",
              JWT_SECRET: "x".repeat(40),
              CARD_VAULT_KEY: Buffer.alloc(32, 1).toString("base64"),
              ...env
            })
          )
        )
      ),
      Effect.either
    )
  )

describe('client addresses\' settings (docs/configuration.md "Client addresses")', () => {
  it("none by default: no proxy believed, no limit per address", async () => {
    const config = Either.getOrThrow(await load({}))
    expect(Option.isNone(config.paymentLinkVisitsPerAddress)).toBe(true)
    expect(config.trustedProxies.includes("10.0.0.1")).toBe(false)
    expect(config.forwardedHeader).toBe("x-forwarded-for")
  })

  it("FORWARDED_HEADER names the header the proxies write, in any case", async () => {
    expect(Either.getOrThrow(await load({ FORWARDED_HEADER: "Forwarded" })).forwardedHeader).toBe("forwarded")
    expect(Either.getOrThrow(await load({ FORWARDED_HEADER: "X-Forwarded-For" })).forwardedHeader).toBe(
      "x-forwarded-for"
    )
  })

  it("read as ranges and a positive count", async () => {
    const config = Either.getOrThrow(
      await load({ TRUSTED_PROXIES: "10.0.0.0/8, fd00::/8", PAYMENT_LINK_VISITS_PER_ADDRESS: "5" })
    )
    expect(config.paymentLinkVisitsPerAddress).toEqual(Option.some(5))
    expect(config.trustedProxies.includes("10.20.30.40")).toBe(true)
    expect(config.trustedProxies.includes("fd12::1")).toBe(true)
    expect(config.trustedProxies.includes("11.0.0.1")).toBe(false)
  })

  it.each([
    ["TRUSTED_PROXIES", { TRUSTED_PROXIES: "10.0.0.0/8, proxy.internal" }],
    ["TRUSTED_PROXIES", { TRUSTED_PROXIES: "10.0.0.0/40" }],
    ["PAYMENT_LINK_VISITS_PER_ADDRESS", { PAYMENT_LINK_VISITS_PER_ADDRESS: "0" }],
    ["PAYMENT_LINK_VISITS_PER_ADDRESS", { PAYMENT_LINK_VISITS_PER_ADDRESS: "ten" }],
    ["FORWARDED_HEADER", { FORWARDED_HEADER: "x-real-ip" }]
  ])("a bad %s stops the start, naming it", async (variable, env) => {
    const result = await load(env)
    expect(Either.isLeft(result) && String(result.left)).toContain(variable)
  })
})

describe('login attempts (docs/decisions.md "Login attempts")', () => {
  it("10 failures in 15 minutes by default, each configurable", async () => {
    expect(Either.getOrThrow(await load({})).loginThrottle).toEqual({ maxFailures: 10, windowSeconds: 900 })
    expect(
      Either.getOrThrow(await load({ LOGIN_FAILURES_MAX: "5", LOGIN_FAILURES_WINDOW_SECONDS: "3600" })).loginThrottle
    ).toEqual({ maxFailures: 5, windowSeconds: 3600 })
  })

  it.each([
    ["LOGIN_FAILURES_MAX", { LOGIN_FAILURES_MAX: "0" }],
    ["LOGIN_FAILURES_WINDOW_SECONDS", { LOGIN_FAILURES_WINDOW_SECONDS: "0" }],
    ["LOGIN_FAILURES_WINDOW_SECONDS", { LOGIN_FAILURES_WINDOW_SECONDS: "86401" }]
  ])("a bad %s stops the start, naming it", async (variable, env) => {
    const result = await load(env)
    expect(Either.isLeft(result) && String(result.left)).toContain(variable)
  })
})

describe("BOLETO_REPORT_DAYS (docs/boleto.md 'When a boleto expires')", () => {
  it("2 business days by default, 0 to 10", async () => {
    expect(Either.getOrThrow(await load({})).boletoReportDays).toBe(2)
    expect(Either.getOrThrow(await load({ BOLETO_REPORT_DAYS: "0" })).boletoReportDays).toBe(0)
    for (const bad of ["-1", "11", "two"]) {
      const result = await load({ BOLETO_REPORT_DAYS: bad })
      expect(Either.isLeft(result) && String(result.left)).toContain("BOLETO_REPORT_DAYS")
    }
  })
})
