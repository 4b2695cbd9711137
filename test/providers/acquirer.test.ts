import { Cause, ConfigProvider, Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { Acquirer } from "../../src/ports/Acquirer.ts"
import { SandboxAcquirerLive } from "../../src/adapters/providers/sandbox/SandboxAcquirer.ts"
import { makeCieloAcquirer } from "../../src/adapters/providers/cielo/CieloAcquirer.ts"
import { LoopbackAcquirerLive, LoopbackPixLive } from "../../src/adapters/providers/loopback/index.ts"
import { makeRedeAcquirer } from "../../src/adapters/providers/rede/RedeAcquirer.ts"
import { Redacted } from "effect"
import { startFakeCielo } from "../fakes/cielo/fake.ts"
import { startLoopbackFake } from "../fakes/loopback/server.ts"
import { startFakeRede } from "../fakes/rede/fake.ts"
import { acquirerKit, card, panEndingIn } from "./acquirer.kit.ts"

/** Short, so a timeout case takes half a second; the status query after it has the same bound. */
const TIMEOUT_MS = 500

acquirerKit(
  "sandbox",
  async () => ({
    acquirer: await Effect.runPromise(Effect.provide(Acquirer, SandboxAcquirerLive)),
    cards: {
      approved: card("4242424242424242", "Visa"),
      declined: { card: card("4000000000000002", "Visa"), code: "card_declined" },
      verified: card("4242424242424242", "Visa"),
      rejected: { card: card("4000000000000069", "Visa"), code: "expired_card" }
    },
    close: async () => {}
  }),
  { fake: false }
)

acquirerKit(
  "Cielo API 3.0 over its fake",
  async () => {
    const fake = await startFakeCielo()
    return {
      acquirer: makeCieloAcquirer({
        merchantId: fake.merchantId,
        merchantKey: Redacted.make(fake.merchantKey),
        apiUrl: fake.api.url(),
        queryUrl: fake.query.url(),
        timeoutMs: TIMEOUT_MS
      }),
      cards: {
        // Cielo's sandbox: the last digit decides (0/1/4 authorised, 2 → 05, 3 → 57).
        approved: card("4024007197692931", "Visa"),
        declined: { card: card(panEndingIn("402400719769", "2"), "Visa"), code: "card_declined" },
        // Zero auth: a card starting with 5 and ending in 0 is valid.
        verified: card(panEndingIn("555566667777", "0"), "Mastercard"),
        rejected: {
          card: card(panEndingIn("555566667777", "0"), "Mastercard", { expYear: 2020 }),
          code: "expired_card"
        }
      },
      faults: {
        inject: (op, fault) => fake.faults.inject(op === "charge" ? "sale" : op === "status" ? "query" : "void", fault),
        down: () => fake.api.down(),
        up: () => fake.api.up(),
        captures: (key) => fake.captures(key).length,
        refunded: (reference) => fake.refunded(reference)
      },
      close: () => fake.close()
    }
  },
  { fake: true }
)

acquirerKit(
  "e.Rede v1 over its fake",
  async () => {
    const fake = await startFakeRede()
    return {
      acquirer: makeRedeAcquirer({
        pv: fake.pv,
        token: Redacted.make(fake.token),
        apiUrl: fake.server.url(),
        timeoutMs: TIMEOUT_MS
      }),
      cards: {
        approved: card("5448280000000007", "Mastercard"),
        declined: { card: card("4000000000009995", "Visa"), code: "insufficient_funds" },
        verified: card(panEndingIn("423564772802", "0"), "Visa"),
        rejected: { card: card(panEndingIn("423564772802", "0"), "Visa", { expYear: 2020 }), code: "card_declined" }
      },
      faults: {
        inject: (op, fault) =>
          fake.faults.inject(op === "charge" ? "transaction" : op === "status" ? "query" : "refund", fault),
        down: () => fake.server.down(),
        up: () => fake.server.up(),
        captures: (key) => fake.captures(key).length,
        refunded: (reference) => fake.refunded(reference)
      },
      close: () => fake.close()
    }
  },
  { fake: true }
)

/** The loopback's settings through a ConfigProvider, as the service reads them, not through process.env. */
const loopbackConfig = (env: Record<string, string>) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

// The test-only live acquirer (docs/providers.md "Test and live modes") over its server in this process. Its
// server takes no faults, so the fault cases are skipped as the sandbox's are.
acquirerKit(
  "loopback over its local server",
  async () => {
    const server = await startLoopbackFake()
    const config = loopbackConfig({ LIVE_LOOPBACK_ALLOWED: "true", LOOPBACK_PROVIDER_URL: server.url })
    return {
      acquirer: await Effect.runPromise(Effect.provide(Acquirer, LoopbackAcquirerLive.pipe(Layer.provide(config)))),
      cards: {
        approved: card("4242424242424242", "Visa"),
        // It declines by amount (an amount ending in 02), being told no card number.
        declined: { card: card("4242424242424242", "Visa"), code: "card_declined", amount: 10_002 },
        // Its verification checks the expiry, as a zero-amount verification does.
        verified: card("4242424242424242", "Visa"),
        rejected: { card: card("4242424242424242", "Visa", { expYear: 2020 }), code: "expired_card" }
      },
      close: () => server.close()
    }
  },
  { fake: false }
)

// What keeps it test-only, for both its adapters: refused at start unless allowed, and always in production.
describe("loopback: refused at start unless LIVE_LOOPBACK_ALLOWED=true outside production", () => {
  const refusal = async <A, E>(layer: Layer.Layer<A, E>, env: Record<string, string>) => {
    const built = await Effect.runPromiseExit(
      Effect.scoped(Layer.build(layer.pipe(Layer.provide(loopbackConfig(env)))))
    )
    return Exit.isFailure(built) ? Cause.pretty(built.cause) : "started"
  }
  const url = "http://127.0.0.1:9"
  const cases = {
    "not allowed": { LOOPBACK_PROVIDER_URL: url },
    "allowed, in production": { LIVE_LOOPBACK_ALLOWED: "true", NODE_ENV: "production", LOOPBACK_PROVIDER_URL: url }
  }
  for (const [label, env] of Object.entries(cases)) {
    it(label, async () => {
      expect(await refusal(LoopbackAcquirerLive, env)).toContain("for tests only")
      expect(await refusal(LoopbackPixLive, env)).toContain("for tests only")
    })
  }
  it("allowed outside production: both start", async () => {
    const env = { LIVE_LOOPBACK_ALLOWED: "true", LOOPBACK_PROVIDER_URL: url }
    expect(await refusal(LoopbackAcquirerLive, env)).toBe("started")
    expect(await refusal(LoopbackPixLive, env)).toBe("started")
  })
})
