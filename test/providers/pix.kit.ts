/**
 * The PixProvider conformance kit: one suite every adapter of the port passes (docs/providers.md "Adding a
 * provider"). An adapter over a fake PSP also hands the kit the PSP's levers (pay, faults, refund outcomes);
 * the cases that need them are skipped for an adapter without a PSP behind it (the sandbox, the loopback).
 */
import { randomUUID } from "node:crypto"
import { Cause, Effect, Exit, type Layer } from "effect"
import { hasError, isDynamicPix, parsePix } from "pix-utils"
import { describe, expect, it } from "vitest"
import { kitRuntime } from "./kitRuntime.ts"
import { outcome } from "./outcome.ts"
import { PixProvider, type PixChargeRequest, type PixDueChargeRequest } from "../../src/ports/PixProvider.ts"

export interface PspLevers {
  /** `again`: a second payer pays the charge already paid (the spec's `CobCompleta.pix` is an array). */
  readonly pay: (txid: string, opts?: { amount?: number; notify?: boolean; again?: boolean }) => Promise<string>
  readonly inject: (match: string, fault: "timeout" | "5xx" | "commit-then-drop" | "401") => void
  readonly settleRefund: (e2e: string, id: string, status: "DEVOLVIDO" | "NAO_REALIZADO") => Promise<void>
  /** The PSP's own BR Code for a txid, to compare with what the adapter hands over. */
  readonly brCodeOf: (txid: string) => string | undefined
  /** The status of a due-date charge (`cobv`) as the PSP holds it (`ATIVA`, `REMOVIDA_PELO_USUARIO_RECEBEDOR`, …). */
  readonly dueChargeStatus: (txid: string) => string | undefined
  /** How many charges the PSP holds for a txid's amount (one, whatever the retries). */
  readonly chargeCount: () => number
  readonly tokensIssued: () => number
}

export interface PixKitSubject {
  readonly name: string
  readonly layer: Layer.Layer<PixProvider>
  readonly psp?: PspLevers
  /**
   * `false` for an adapter whose PSP issues no due-date charges (the loopback): the port lets it refuse them
   * (src/ports/PixProvider.ts `createDueCharge`), and the kit then asserts that exact refusal, and that it knows
   * no due-date charge to withdraw, instead of the due-date cases. Absent: it issues them, and every case runs.
   */
  readonly dueCharges?: false
  /**
   * `false` for an adapter that keeps no charges to look a txid up in (the sandbox, whose charges are the
   * gateway's own rows): it cannot tell a txid it never issued, so the case that asks it about one is skipped
   * and says so. Absent: the PSP holds its charges, and the case runs.
   */
  readonly knowsCharges?: false
}

const request = (amount: number, payer = true): PixChargeRequest => ({
  transactionId: randomUUID(),
  amount,
  expiresAt: new Date(Date.now() + 3600_000),
  merchantName: "Loja da Conceição",
  merchantCity: "São Paulo",
  payer: Effect.succeed(payer ? { name: "Maria da Silva", document: "52998224725", documentType: "cpf" } : null)
})

/** A bolepix's due-date charge, due in a week (a PSP refuses a due date before the charge's creation). */
const dueRequest = (amount: number): PixDueChargeRequest => ({
  transactionId: randomUUID(),
  amount,
  dueDate: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
  payableDaysAfterDue: 0,
  merchantName: "Loja da Conceição",
  merchantCity: "São Paulo",
  payer: { name: "Maria da Silva", document: "52998224725", documentType: "cpf" }
})

export const pixKit = (subject: () => Promise<PixKitSubject> | PixKitSubject, teardown?: () => Promise<void>) =>
  describe("PixProvider conformance", () => {
    let s: PixKitSubject
    const { run, exit } = kitRuntime(PixProvider, subject, teardown, (started) => (s = started))
    const psp = () => s.psp!

    /** A case that needs the PSP's levers: skipped, and said so, for an adapter without them. */
    const pspIt = (name: string, body: () => Promise<void>) =>
      it(name, async (ctx) => {
        if (s.psp === undefined) return ctx.skip()
        await body()
      })
    /**
     * A due-date case: skipped for an adapter that issues no due-date charges (`dueCharges: false`), which runs
     * the refusal case instead; `levers` when it needs the PSP's too.
     */
    const dueIt = (name: string, body: () => Promise<void>, levers = false) =>
      it(name, async (ctx) => {
        if (s.dueCharges === false || (levers && s.psp === undefined)) return ctx.skip()
        await body()
      })

    it("issues a charge whose BR Code decodes, with a txid of the API's form, the same for a retry", async () => {
      const r = request(12_345)
      const first = await run((p) => p.createCharge(r))
      const parsed = parsePix(first.emv)
      expect(hasError(parsed)).toBe(false)
      const again = await run((p) => p.createCharge(r))
      expect(again).toEqual(first)
      if (s.psp !== undefined) {
        expect(first.txid).toMatch(/^[a-zA-Z0-9]{26,35}$/)
        // The buyer sees the PSP's own dynamic code, byte for byte.
        expect(first.emv).toBe(psp().brCodeOf(first.txid))
        expect(!hasError(parsed) && isDynamicPix(parsed)).toBe(true)
      }
    })

    pspIt("reads the charge's status: open, then paid with the payment", async () => {
      const charge = await run((p) => p.createCharge(request(2_050)))
      expect((await run((p) => p.chargeStatus(charge.txid))).status).toBe("OPEN")
      const e2e = await psp().pay(charge.txid, { notify: false })
      const state = await run((p) => p.chargeStatus(charge.txid))
      expect(state.status).toBe("PAID")
      expect(state.payments).toHaveLength(1)
      expect(state.payments[0]).toMatchObject({ endToEndId: e2e, txid: charge.txid, amount: 2_050 })
    })

    pspIt("withdraws an open charge at expiry; a paid one stays paid", async () => {
      const open = await run((p) => p.createCharge(request(990)))
      expect((await run((p) => p.cancelCharge(open.txid))).status).toBe("REMOVED_BY_RECEIVER")
      await expect(psp().pay(open.txid)).rejects.toThrow()
      const paid = await run((p) => p.createCharge(request(991)))
      await psp().pay(paid.txid, { notify: false })
      expect((await run((p) => p.cancelCharge(paid.txid))).status).toBe("PAID")
    })

    it("a charge the PSP never issued: chargeStatus is refused as pix_charge_unknown, never OPEN", async (ctx) => {
      if (s.knowsCharges === false) return ctx.skip("this PSP keeps no charges: it cannot tell one it never issued")
      // One it issued is known, open: a PSP that refused every txid would not pass.
      const issued = await run((p) => p.createCharge(request(1_234)))
      expect(await run((p) => p.chargeStatus(issued.txid))).toMatchObject({ txid: issued.txid, status: "OPEN" })
      const never = randomUUID().replace(/-/g, "")
      const asked = await exit((p) => p.chargeStatus(never))
      expect(Exit.isFailure(asked) && Cause.failureOption(asked.cause)).toMatchObject({
        _tag: "Some",
        value: { _tag: "Unprocessable", code: "pix_charge_unknown" }
      })
    })

    it("without due-date charges: refused as pix_due_charge_unsupported, and none known to withdraw", async (ctx) => {
      if (s.dueCharges !== false) return ctx.skip()
      const asked = dueRequest(15_000)
      const refused = await exit((p) => p.createDueCharge(asked))
      expect(Exit.isFailure(refused) && Cause.failureOption(refused.cause)).toMatchObject({
        _tag: "Some",
        value: { _tag: "Unprocessable", code: "pix_due_charge_unsupported" }
      })
      // The withdrawal job of a bolepix issued before the PSP was changed asks it: refused, never "withdrawn".
      const txid = asked.transactionId.replace(/-/g, "")
      const unknown = await exit((p) => p.withdrawDueCharge(txid))
      expect(Exit.isFailure(unknown) && Cause.failureOption(unknown.cause)).toMatchObject({
        _tag: "Some",
        value: { _tag: "Unprocessable", code: "pix_charge_unknown" }
      })
    })

    dueIt("withdraws a due-date charge (cobv) so it can no longer be paid; asked again, the same answer", async () => {
      const due = await run((p) => p.createDueCharge(dueRequest(15_000)))
      const withdrawn = await run((p) => p.withdrawDueCharge(due.txid))
      expect(withdrawn).toEqual({ txid: due.txid, status: "REMOVED_BY_RECEIVER", payments: [] })
      // A retry (the job's, after a lost answer) is the same withdrawal, not an error.
      expect(await run((p) => p.withdrawDueCharge(due.txid))).toEqual(withdrawn)
      if (s.psp !== undefined) {
        expect(psp().dueChargeStatus(due.txid)).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR")
        await expect(psp().pay(due.txid, { notify: false })).rejects.toThrow(/REMOVIDA/)
      }
    })

    dueIt(
      "a due-date charge paid meanwhile is not withdrawn: the PSP's refusal answers PAID, with the payment",
      async () => {
        const due = await run((p) => p.createDueCharge(dueRequest(15_100)))
        const e2e = await psp().pay(due.txid, { notify: false })
        const state = await run((p) => p.withdrawDueCharge(due.txid))
        expect(state.status).toBe("PAID")
        expect(state.payments).toHaveLength(1)
        expect(state.payments[0]).toMatchObject({ endToEndId: e2e, txid: due.txid, amount: 15_100 })
        expect(psp().dueChargeStatus(due.txid)).toBe("CONCLUIDA")
      },
      true
    )

    dueIt(
      "a due-date charge's withdrawal: the PSP down is ProviderUnavailable; a lost answer is read back",
      async () => {
        const due = await run((p) => p.createDueCharge(dueRequest(15_200)))
        psp().inject("PATCH /cobv/", "5xx")
        expect(outcome(await exit((p) => p.withdrawDueCharge(due.txid)))).toBe("ProviderUnavailable")
        expect(psp().dueChargeStatus(due.txid)).toBe("ATIVA")
        // Withdrawn at the PSP, the answer dropped: unknown to us, asked again, the refusal read back.
        psp().inject("PATCH /cobv/", "commit-then-drop")
        expect(outcome(await exit((p) => p.withdrawDueCharge(due.txid)))).toBe("ProviderUnavailable")
        expect(psp().dueChargeStatus(due.txid)).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR")
        expect((await run((p) => p.withdrawDueCharge(due.txid))).status).toBe("REMOVED_BY_RECEIVER")
        // A txid the PSP never issued is refused in our words, not read as withdrawn.
        const unknown = await exit((p) => p.withdrawDueCharge("NoSuchDueCharge00000000000000"))
        expect(Exit.isFailure(unknown) && Cause.failureOption(unknown.cause)).toMatchObject({
          _tag: "Some",
          value: { _tag: "Unprocessable", code: "pix_charge_unknown" }
        })
      },
      true
    )

    pspIt("a timeout or a 5xx once is retried with the same txid; twice is ProviderUnavailable", async () => {
      const before = psp().chargeCount()
      psp().inject("PUT /cob/", "timeout")
      const afterTimeout = await run((p) => p.createCharge(request(1_001)))
      expect(psp().brCodeOf(afterTimeout.txid)).toBe(afterTimeout.emv)
      psp().inject("PUT /cob/", "5xx")
      await run((p) => p.createCharge(request(1_002)))
      expect(psp().chargeCount()).toBe(before + 2)
      psp().inject("PUT /cob/", "5xx")
      psp().inject("PUT /cob/", "5xx")
      expect(outcome(await exit((p) => p.createCharge(request(1_003))))).toBe("ProviderUnavailable")
      expect(psp().chargeCount()).toBe(before + 2)
    })

    pspIt("a charge committed at the PSP whose answer was lost is found again, created once", async () => {
      const before = psp().chargeCount()
      psp().inject("PUT /cob/", "commit-then-drop")
      const charge = await run((p) => p.createCharge(request(4_321)))
      expect(psp().chargeCount()).toBe(before + 1)
      expect(charge.emv).toBe(psp().brCodeOf(charge.txid))
    })

    pspIt("an expired token is fetched again once (401), and the call goes through", async () => {
      const charge = await run((p) => p.createCharge(request(777)))
      const tokens = psp().tokensIssued()
      psp().inject("GET /cob/", "401")
      expect((await run((p) => p.chargeStatus(charge.txid))).status).toBe("OPEN")
      expect(psp().tokensIssued()).toBe(tokens + 1)
    })

    pspIt("refunds partly then fully; the final statuses DEVOLVIDO and NAO_REALIZADO arrive later", async () => {
      const charge = await run((p) => p.createCharge(request(10_000)))
      const e2e = await psp().pay(charge.txid, { notify: false })
      const partialId = randomUUID()
      const partial = await run((p) => p.refund({ txid: charge.txid, refundId: partialId, amount: 2_500 }))
      expect(partial).toMatchObject({ refundId: partialId, amount: 2_500, status: "PROCESSING" })
      // A retry with the same id is the same refund, not a second one.
      const retried = await run((p) =>
        p.refund({ txid: charge.txid, endToEndId: e2e, refundId: partialId, amount: 2_500 })
      )
      expect(retried).toMatchObject({ refundId: partialId, amount: 2_500 })
      const pspId = partialId.replace(/-/g, "")
      await psp().settleRefund(e2e, pspId, "DEVOLVIDO")
      const returned = await run((p) => p.refundStatus({ endToEndId: e2e, refundId: partialId }))
      expect(returned.status).toBe("RETURNED")
      expect(returned.settledAt).toBeInstanceOf(Date)

      const restId = randomUUID()
      const rest = await run((p) => p.refund({ txid: charge.txid, endToEndId: e2e, refundId: restId, amount: 7_500 }))
      expect(rest.status).toBe("PROCESSING")
      await psp().settleRefund(e2e, restId.replace(/-/g, ""), "NAO_REALIZADO")
      const notReturned = await run((p) => p.refundStatus({ endToEndId: e2e, refundId: restId }))
      expect(notReturned.status).toBe("NOT_RETURNED")
      // The charge's payment carries both refunds.
      const state = await run((p) => p.chargeStatus(charge.txid))
      expect(state.payments[0]!.refunds.map((r) => r.status).sort()).toEqual(["NOT_RETURNED", "RETURNED"])
      // Named by our refund ids, as a notice's devolucoes are read (docs/providers.md "Refunds").
      expect(state.payments[0]!.refunds.map((r) => r.refundId).sort()).toEqual([partialId, restId].sort())
      // More than was paid is refused in our words.
      const over = await exit((p) =>
        p.refund({ txid: charge.txid, endToEndId: e2e, refundId: randomUUID(), amount: 9_000 })
      )
      expect(outcome(over)).toBe("Unprocessable")
    })

    pspIt("two payments on one charge: a refund naming one is that payment's, never the other's", async () => {
      const charge = await run((p) => p.createCharge(request(5_000)))
      // Payer A pays 40,00 of the 50,00; payer B, who read the same QR code, pays the 50,00.
      const first = await psp().pay(charge.txid, { amount: 4_000, notify: false })
      const second = await psp().pay(charge.txid, { notify: false, again: true })
      const state = await run((p) => p.chargeStatus(charge.txid))
      expect(state.status).toBe("PAID")
      expect(state.payments.map((x) => [x.endToEndId, x.amount])).toEqual([
        [first, 4_000],
        [second, 5_000]
      ])
      // The whole 50,00 back to B: more than A paid, so sent to A's payment it would be refused.
      const refundId = randomUUID()
      const full = await run((p) => p.refund({ txid: charge.txid, endToEndId: second, refundId, amount: 5_000 }))
      expect(full).toMatchObject({ refundId, amount: 5_000 })
      expect(["PROCESSING", "RETURNED"]).toContain(full.status)
      expect(await run((p) => p.refundStatus({ endToEndId: second, refundId }))).toMatchObject({
        refundId,
        amount: 5_000
      })
      const after = await run((p) => p.chargeStatus(charge.txid))
      const refundsOf = (e2e: string) =>
        after.payments.find((x) => x.endToEndId === e2e)!.refunds.map((r) => r.refundId)
      expect(refundsOf(second)).toEqual([refundId])
      expect(refundsOf(first)).toEqual([])
    })

    pspIt("lists received payments in a window, every page, each once", async () => {
      const from = new Date(Date.now() - 1000)
      const paid: Array<string> = []
      for (const amount of [101, 102, 103]) {
        const charge = await run((p) => p.createCharge(request(amount, false)))
        paid.push(await psp().pay(charge.txid, { notify: false }))
      }
      const listed = await run((p) => p.receivedPayments({ from, to: new Date(Date.now() + 1000) }))
      const ours = listed.filter((r) => paid.includes(r.endToEndId))
      expect(ours.map((r) => r.endToEndId).sort()).toEqual([...paid].sort())
      expect(new Set(listed.map((r) => r.endToEndId)).size).toBe(listed.length)
      expect(ours.map((r) => r.amount).sort()).toEqual([101, 102, 103])
    })

    // An adapter with a PSP's levers runs the refund case above instead: skipped, not passed without asserting.
    it("a refund is answered in the port's words", async (ctx) => {
      if (s.psp !== undefined) return ctx.skip()
      const state = await run((p) => p.refund({ txid: "x", refundId: "r1", amount: 100 }))
      expect(["PROCESSING", "RETURNED", "NOT_RETURNED"]).toContain(state.status)
    })
  })
