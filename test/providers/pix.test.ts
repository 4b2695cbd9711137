import { chmodSync, copyFileSync } from "node:fs"
import { join } from "node:path"
import { Cause, ConfigProvider, Effect, Exit, Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BcbPixProviderLive } from "../../src/adapters/providers/bcb-pix/BcbPixProvider.ts"
import { LoopbackPixLive } from "../../src/adapters/providers/loopback/index.ts"
import { SandboxPixProviderLive } from "../../src/adapters/providers/sandbox/SandboxPixProvider.ts"
import { PixProvider } from "../../src/ports/PixProvider.ts"
import { describeStartupFailure } from "../../src/startupFailure.ts"
import { makeCertificates, type PixTestCertificates } from "../fakes/pix/certs.ts"
import { type LoopbackFake, startLoopbackFake } from "../fakes/loopback/server.ts"
import { type FakePsp, gatewayEnv, startFakePsp } from "../fakes/pix/server.ts"
import { pixKit, type PixKitSubject } from "./pix.kit.ts"

// One set of throwaway certificates for the file: RSA key generation is the slow part.
let certificates: PixTestCertificates | undefined
const certs = () => (certificates ??= makeCertificates())

const bcbLayer = (env: Record<string, string>) =>
  BcbPixProviderLive.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))

const overFake = (profile: string) => {
  let psp: FakePsp
  const subject = async (): Promise<PixKitSubject> => {
    psp = await startFakePsp({ profile, certificates: certs() })
    return {
      name: `bcb-pix/${profile}`,
      layer: bcbLayer(gatewayEnv(psp, certs())),
      psp: {
        pay: (txid, opts) => psp.pay(txid, opts),
        inject: (match, fault) => psp.inject(match, fault),
        settleRefund: (e2e, id, status) => psp.settleRefund(e2e, id, status, { notify: false }),
        brCodeOf: (txid) => psp.cobs.get(txid)?.pixCopiaECola,
        dueChargeStatus: (txid) => psp.cobvs.get(txid)?.status,
        chargeCount: () => psp.cobs.size,
        tokensIssued: () => psp.counters.tokensIssued
      }
    }
  }
  return [subject, () => psp.close()] as const
}

describe("sandbox", () => {
  pixKit(() => ({ name: "sandbox", layer: SandboxPixProviderLive, knowsCharges: false }))
})

// The test-only live PSP (docs/providers.md "Test and live modes") over its server in this process, configured
// through a ConfigProvider as bcbLayer is. It offers no levers, so the cases that need a PSP's are skipped, and it
// issues no due-date charges, which the kit then holds it to refusing in our words.
describe("loopback over its local server", () => {
  let server: LoopbackFake
  pixKit(
    async () => {
      server = await startLoopbackFake()
      const config = ConfigProvider.fromMap(
        new Map([
          ["LIVE_LOOPBACK_ALLOWED", "true"],
          ["LOOPBACK_PROVIDER_URL", server.url]
        ])
      )
      return {
        name: "loopback",
        // A setting missing or refused is a defect of the test, as at start-up.
        layer: LoopbackPixLive.pipe(Layer.provide(Layer.setConfigProvider(config)), Layer.orDie),
        dueCharges: false
      }
    },
    () => server.close()
  )
})

for (const profile of ["efi", "bb", "itau"]) {
  describe(`bcb-pix over the fake PSP, ${profile} profile`, () => {
    pixKit(...overFake(profile))
  })
}

/** The first failure or defect of an exit, for asserting on it. */
const failureOf = <A, E>(exit: Exit.Exit<A, E>): unknown =>
  Exit.isSuccess(exit) ? undefined : Option.getOrElse(Cause.failureOption(exit.cause), () => Cause.squash(exit.cause))

const charge = (layer: Layer.Layer<PixProvider>) =>
  Effect.runPromiseExit(
    Effect.flatMap(PixProvider, (p) =>
      p.createCharge({
        transactionId: crypto.randomUUID(),
        amount: 100,
        expiresAt: new Date(Date.now() + 60_000),
        merchantName: "Loja",
        merchantCity: "Sao Paulo"
      })
    ).pipe(Effect.provide(layer))
  )

describe("bcb-pix: each profile's quirks, as the fake enforces them", () => {
  // What each profile must send; dropping it makes the fake refuse (so the adapter sends it).
  const quirk: Record<string, { readonly without: Record<string, string | undefined>; readonly what: string }> = {
    efi: { without: { PIX_CLIENT_SECRET: "wrong" }, what: "HTTP Basic credentials with a JSON token body" },
    inter: { without: { PIX_ACCOUNT: "00000000" }, what: "x-conta-corrente" },
    sicoob: { without: { PIX_CLIENT_ID: "someone-else" }, what: "client_id in the form, no secret needed" },
    bb: { without: { PIX_APP_KEY: "wrong-app-key" }, what: "gw-dev-app-key on every call" },
    itau: { without: { PIX_APP_KEY: "wrong-app-key" }, what: "x-itau-apikey and x-itau-correlationid" },
    santander: { without: { PIX_CLIENT_SECRET: "wrong" }, what: "grant_type in the token URL, /api/v1 paths" }
  }
  const fakes: Array<FakePsp> = []
  afterAll(() => Promise.all(fakes.map((f) => f.close())))

  for (const [profile, q] of Object.entries(quirk)) {
    it(`${profile}: ${q.what}`, async () => {
      const psp = await startFakePsp({ profile, certificates: certs() })
      fakes.push(psp)
      const env = gatewayEnv(psp, certs())
      if (profile === "sicoob") delete env.PIX_CLIENT_SECRET
      const ok = await charge(bcbLayer(env))
      expect(Exit.isSuccess(ok)).toBe(true)
      const requests = psp.counters.requests
      const refused = await charge(bcbLayer({ ...env, ...q.without } as Record<string, string>))
      expect(failureOf(refused)).toMatchObject({ _tag: "ProviderUnavailable" })
      expect(psp.counters.requests).toBeGreaterThan(requests)
    })
  }
})

describe("bcb-pix: notice URL registration", () => {
  const register = (psp: FakePsp, url: string) =>
    Effect.runPromiseExit(
      Effect.flatMap(PixProvider, (p) => p.registerNotifications(url)).pipe(
        Effect.provide(bcbLayer(gatewayEnv(psp, certs())))
      )
    )

  it("PUT /webhook/{chave} where the PSP takes it by API; Itaú's staff register it (our typed refusal)", async () => {
    const efi = await startFakePsp({ profile: "efi", certificates: certs() })
    const itau = await startFakePsp({ profile: "itau", certificates: certs() })
    try {
      const url = "https://gateway.example.com/providers/pix/efi/webhook"
      expect(Exit.isSuccess(await register(efi, url))).toBe(true)
      expect(efi.webhooks.get(efi.pixKey)).toBe(url)
      expect(failureOf(await register(itau, url))).toMatchObject({ _tag: "Unprocessable", code: "pix_webhook_manual" })
      expect(itau.counters.requests).toBe(0)
    } finally {
      await Promise.all([efi.close(), itau.close()])
    }
  })
})

describe("bcb-pix: certificates and start-up", () => {
  let psp: FakePsp
  beforeAll(async () => {
    psp = await startFakePsp({ profile: "efi", certificates: certs() })
  })
  afterAll(() => psp.close())

  it("works with a PKCS#12 file instead of a PEM pair", async () => {
    const env = gatewayEnv(psp, certs(), {
      PIX_CERT_FILE: undefined,
      PIX_KEY_FILE: undefined,
      PIX_PKCS12_FILE: certs().files.merchantPkcs12,
      PIX_PKCS12_PASSPHRASE: certs().pkcs12Passphrase
    })
    expect(Exit.isSuccess(await charge(bcbLayer(env)))).toBe(true)
  })

  it("refuses to start, in one line, when the key file is readable by others", async () => {
    const loose = join(certs().dir, "loose.key")
    copyFileSync(certs().files.merchantKey, loose)
    chmodSync(loose, 0o644)
    const exit = await Effect.runPromiseExit(
      Effect.scoped(Layer.build(bcbLayer(gatewayEnv(psp, certs(), { PIX_KEY_FILE: loose }))))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const line = Exit.isFailure(exit) ? describeStartupFailure(exit.cause, {}) : undefined
    expect(line).toMatch(/^cannot start: invalid configuration: .*PIX_KEY_FILE.*readable by group or others/)
    expect(line).not.toContain("PRIVATE KEY")
    expect(line?.split("\n")).toHaveLength(1)
  })

  it("without the merchant's certificate the PSP accepts no connection (mTLS)", async () => {
    const env = gatewayEnv(psp, certs(), {
      PIX_CERT_FILE: certs().files.caCert,
      PIX_KEY_FILE: join(certs().dir, "stranger.key")
    })
    // A certificate from another CA: the TLS handshake fails, nothing reaches the API.
    const { writeFileSync } = await import("node:fs")
    writeFileSync(join(certs().dir, "stranger.crt"), certs().stranger.certPem)
    writeFileSync(join(certs().dir, "stranger.key"), certs().stranger.keyPem, { mode: 0o600 })
    const before = psp.counters.requests
    const exit = await charge(bcbLayer({ ...env, PIX_CERT_FILE: join(certs().dir, "stranger.crt") }))
    expect(failureOf(exit)).toMatchObject({ _tag: "ProviderUnavailable" })
    expect(psp.counters.requests).toBe(before)
  })

  it("never puts the client secret or the token in an error", async () => {
    const exit = await charge(bcbLayer(gatewayEnv(psp, certs(), { PIX_CLIENT_SECRET: "s3cr3t-value" })))
    expect(JSON.stringify(failureOf(exit))).not.toContain("s3cr3t-value")
  })
})
