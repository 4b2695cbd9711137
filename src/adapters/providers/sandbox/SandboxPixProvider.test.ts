import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseBrCode } from "../../../domain/brcode.ts"
import { PixProvider, type PixChargeRequest } from "../../../ports/PixProvider.ts"
import { SANDBOX_PIX_KEY, SandboxPixProviderLive } from "./SandboxPixProvider.ts"

const request: PixChargeRequest = {
  transactionId: "8d2f0a9e-5b1c-4e7a-9f3d-2c6b8a1e4f70",
  amount: 12_345,
  expiresAt: new Date("2026-06-15T13:00:00Z"),
  merchantName: "Loja da Conceição",
  merchantCity: "São Paulo"
}

const create = (r: PixChargeRequest) =>
  Effect.flatMap(PixProvider, (p) => p.createCharge(r)).pipe(Effect.provide(SandboxPixProviderLive))

describe("SandboxPixProvider", () => {
  it.effect("issues a BR Code that parses with a valid CRC and carries the charge", () =>
    Effect.gen(function* () {
      const charge = yield* create(request)
      const parsed = parseBrCode(charge.emv)
      expect(parsed.ok).toBe(true)
      if (!parsed.ok) return
      expect(parsed.code.pixKey).toBe(SANDBOX_PIX_KEY)
      expect(parsed.code.amountCents).toBe(12_345)
      expect(parsed.code.merchantName).toBe("Loja da Conceicao")
      expect(parsed.code.merchantCity).toBe("Sao Paulo")
      expect(parsed.code.txid).toBe(charge.txid)
      expect(charge.txid).toBe("8d2f0a9e5b1c4e7a9f3d2c6b8")
      expect(charge.txid.length).toBeLessThanOrEqual(25)
    })
  )

  it.effect("derives the same txid for the same transaction (a retry issues the same code)", () =>
    Effect.gen(function* () {
      expect(yield* create(request)).toEqual(yield* create(request))
    })
  )

  it.effect("still issues a code for a merchant name with no Latin letters", () =>
    Effect.gen(function* () {
      const charge = yield* create({ ...request, merchantName: "東京商店", merchantCity: "東京" })
      expect(parseBrCode(charge.emv).ok).toBe(true)
    })
  )

  it.effect("refunds", () =>
    Effect.flatMap(PixProvider, (p) => p.refund({ txid: "abc", refundId: "r1", amount: 1 })).pipe(
      Effect.provide(SandboxPixProviderLive)
    )
  )
})
