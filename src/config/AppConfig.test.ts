import { ConfigProvider, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_DATA_DIR, loadAppConfig } from "./AppConfig.ts"

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

/** Refused at start, the message naming every variable in `variables` (docs/configuration.md). */
const refused = async (env: Record<string, string>, ...variables: ReadonlyArray<string>) => {
  const result = await load(env)
  expect(Either.isLeft(result), `${JSON.stringify(env)} was accepted`).toBe(true)
  for (const variable of variables) expect(Either.isLeft(result) && String(result.left)).toContain(variable)
}

describe('an empty value is as if unset (docs/configuration.md "Empty values")', () => {
  // Effect's Config.integer reads "" as Number("") = 0: REQUEST_LOG_RETENTION_DAYS="" purged the request log.
  it("integers take their default, not 0", async () => {
    const config = Either.getOrThrow(
      await load({
        REQUEST_LOG_RETENTION_DAYS: "",
        BOLETO_REPORT_DAYS: " ",
        WORKER_REFETCH_DELAY_MS: "",
        INSTALLMENT_MIN_AMOUNT: "",
        BOLETO_CONFIRMATION_DELAY_SECONDS: "",
        WITHDRAWAL_DELAY_SECONDS: "",
        SANDBOX_DISPUTE_DELAY_SECONDS: ""
      })
    )
    expect(config.requestLogRetentionDays).toBe(7)
    expect(config.boletoReportDays).toBe(2)
    expect(config.workerRefetchDelayMs).toBe(50)
    expect(config.installments.minAmount).toBe(500)
    expect(config.boletoConfirmationDelaySeconds).toBe(5)
    expect(config.money.withdrawalDelaySeconds).toBe(5)
    expect(config.money.disputeDelaySeconds).toBe(10)
  })

  it("DATA_DIR and PUBLIC_BASE_URL take their defaults, not the current directory nor a bad URL", async () => {
    const config = Either.getOrThrow(await load({ DATA_DIR: "", PUBLIC_BASE_URL: "", PORT: "8080" }))
    expect(config.dataDir).toBe(DEFAULT_DATA_DIR)
    expect(config.publicBaseUrl).toBe("http://localhost:8080")
  })

  it("a required one is refused as missing: JWT_SECRET and CARD_VAULT_KEY in production", async () => {
    await refused({ JWT_SECRET: "" }, "JWT_SECRET")
    await refused({ CARD_VAULT_KEY: "" }, "CARD_VAULT_KEY")
  })
})

describe("secrets", () => {
  // RFC 7518 §3.2: an HS256 key must be at least as long as the hash output, 256 bits.
  it("JWT_SECRET in production is at least 32 bytes", async () => {
    await refused({ JWT_SECRET: "x".repeat(31) }, "JWT_SECRET")
    expect(Either.isRight(await load({ JWT_SECRET: "x".repeat(32) }))).toBe(true)
  })
})

describe("durations that feed timers are bounded (Node's setTimeout runs a delay above 2^31-1 ms after 1 ms)", () => {
  it.each([
    ["WORKER_POLL_INTERVAL_MS", "3000000000"],
    ["WORKER_REFETCH_DELAY_MS", "2147483648"],
    ["WEBHOOK_TIMEOUT_MS", "2147483648"],
    ["HTTP_HEADERS_TIMEOUT_MS", "2147483648"],
    ["HTTP_REQUEST_TIMEOUT_MS", "2147483648"],
    ["BOLETO_CONFIRMATION_DELAY_SECONDS", "2147484"],
    ["WITHDRAWAL_DELAY_SECONDS", "2147484"],
    ["SANDBOX_DISPUTE_DELAY_SECONDS", "2147484"],
    // API Pix: calendario.expiracao is an int32 of seconds; beyond any date, now + it was an Invalid Date.
    ["PIX_EXPIRES_IN_SECONDS", "2147483648"],
    ["PIX_EXPIRES_IN_SECONDS", "100000000000000"]
  ])("%s=%s is refused, naming it", async (variable, value) => {
    await refused(
      variable === "HTTP_HEADERS_TIMEOUT_MS"
        ? { [variable]: value, HTTP_REQUEST_TIMEOUT_MS: value }
        : { [variable]: value },
      variable
    )
  })

  it("the largest values are accepted", async () => {
    const config = Either.getOrThrow(
      await load({ WORKER_POLL_INTERVAL_MS: "2147483647", PIX_EXPIRES_IN_SECONDS: "2147483647" })
    )
    expect(config.workerPollIntervalMs).toBe(2_147_483_647)
    expect(config.pixExpiresInSeconds).toBe(2_147_483_647)
  })
})

describe("HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS (node:http refuses headers above request)", () => {
  it.each([{ HTTP_REQUEST_TIMEOUT_MS: "5000" }, { HTTP_HEADERS_TIMEOUT_MS: "40000" }])(
    "%o is refused, naming both",
    async (env) => {
      await refused(env, "HTTP_HEADERS_TIMEOUT_MS", "HTTP_REQUEST_TIMEOUT_MS")
    }
  )

  it("equal is accepted", async () => {
    const config = Either.getOrThrow(await load({ HTTP_HEADERS_TIMEOUT_MS: "20000", HTTP_REQUEST_TIMEOUT_MS: "20000" }))
    expect(config.http.headersTimeoutMs).toBe(20_000)
  })
})

describe("PUBLIC_BASE_URL (the base of qrCodeUrl and pdfUrl)", () => {
  it.each(["pay.example.com:8443", "ftp://pay.example.com", "localhost:3000"])("%s is refused", async (url) => {
    await refused({ PUBLIC_BASE_URL: url }, "PUBLIC_BASE_URL")
  })

  it("an http(s) URL is kept without its trailing slash", async () => {
    expect(Either.getOrThrow(await load({ PUBLIC_BASE_URL: "https://pay.example.com:8443/" })).publicBaseUrl).toBe(
      "https://pay.example.com:8443"
    )
  })
})

// docs/antifraud.md: the velocity windows are positive integers and "a bad value stops start-up with a message
// naming the variable". A window past ten years was accepted, and then every card charge was a 500 (its
// bucket's end beyond what a Date holds): start-up now refuses it.
describe("the antifraud's velocity windows at start-up", () => {
  it.each(["ANTIFRAUD_CARD_VELOCITY_WINDOW_SECONDS", "ANTIFRAUD_DOCUMENT_VELOCITY_WINDOW_SECONDS"])(
    "%s past ten years stops start-up naming it; ten years is taken",
    async (name) => {
      const huge = await load({ [name]: "10000000000000" })
      expect(Either.isLeft(huge)).toBe(true)
      expect(String(Either.isLeft(huge) ? huge.left : "")).toContain(name)
      expect(Either.isRight(await load({ [name]: String(10 * 366 * 86_400) }))).toBe(true)
    }
  )
})
