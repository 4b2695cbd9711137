/**
 * The Payouts conformance kit: one suite every adapter of the port passes (docs/providers.md "The Payouts
 * conformance kit", and "Adding a provider"). The contract is the port's doc comments (src/ports/Payouts.ts):
 * `available` says whether the bank pays out at all; `pay` answers `Paid` or `Failed` with a reason, and
 * `ProviderUnavailable` only when the bank cannot be asked; `withdrawalId` is the idempotency key, so a retried
 * job never pays twice. A bank whose subject hands over its levers (count its transfers; make it unreachable) runs
 * the cases that need them; another skips them, and says so in its output.
 */
import { randomUUID } from "node:crypto"
import { Effect, Either, Exit, type Layer } from "effect"
import { describe, expect, it } from "vitest"
import { kitRuntime } from "./kitRuntime.ts"
import { outcome } from "./outcome.ts"
import { type BankAccount, validateBankAccount } from "../../src/domain/subaccount.ts"
import { type PayoutResult, Payouts } from "../../src/ports/Payouts.ts"

export type PayoutRequest = Parameters<Payouts["Type"]["pay"]>[0]

export interface PayoutsKitSubject {
  readonly name: string
  readonly layer: Layer.Layer<Payouts>
  /**
   * `false` for an adapter that pays nothing out (live mode with no payouts adapter configured): the app refuses
   * a withdrawal before it asks `pay` (409 `payouts_unavailable`, src/app/Withdrawals.ts). The kit then asserts
   * that `available` answers false and that `pay` pays nothing, and skips every case that pays. Absent: the bank
   * pays out, `available` answers true, and every case runs.
   */
  readonly available?: false
  /** A transfer the bank refuses, as it documents it (the sandbox: its failing account). Absent: no such lever. */
  readonly refusal?: {
    readonly bankAccount: BankAccount
    /** The reason it answers, asserted exactly when given (any answer's reason must be non-empty). */
    readonly reason?: string
  }
  /** How many transfers the bank made for a withdrawal id (a fake bank's own count). Absent: no such lever. */
  readonly transfers?: (withdrawalId: string) => number
  /** Make the bank unreachable until `up`. Absent: no such lever. */
  readonly outage?: {
    readonly down: () => Promise<void>
    readonly up: () => Promise<void>
  }
}

/** A bank account as the domain takes one: through its own validator (CONTRACT-v1 §8), or the kit is wrong. */
export const bankAccount = (account: string): BankAccount =>
  Either.getOrThrowWith(
    validateBankAccount(
      { bank_code: "341", agency: "0123", agency_digit: null, account, account_digit: "5", type: "checking" },
      "bank_account"
    ),
    (errors) => new Error(`the kit's bank account is invalid: ${JSON.stringify(errors)}`)
  )

export const payoutsKit = (
  subject: () => Promise<PayoutsKitSubject> | PayoutsKitSubject,
  teardown?: () => Promise<void>
) =>
  describe("Payouts conformance", () => {
    let s: PayoutsKitSubject
    const { run, exit } = kitRuntime(Payouts, subject, teardown, (started) => (s = started))
    const pay = (r: PayoutRequest) => run((p) => p.pay(r))
    /** The same request `times` times at once, every answer. */
    const race = (r: PayoutRequest, times = 8) =>
      run((p) =>
        Effect.all(
          Array.from({ length: times }, () => p.pay(r)),
          { concurrency: "unbounded" }
        )
      )

    const request = (amount: number, account = bankAccount("12345678")): PayoutRequest => ({
      withdrawalId: randomUUID(),
      amount,
      bankAccount: account
    })
    const refused = (amount: number) => request(amount, s.refusal!.bankAccount)

    /** Why a case that needs a lever is skipped for a subject without it. */
    const lacking = {
      refusal: () => s.refusal === undefined && "no transfer this bank refuses",
      transfers: () => s.transfers === undefined && "no lever to count this bank's transfers",
      outage: () => s.outage === undefined && "no lever to make this bank unreachable"
    }
    /**
     * A case that pays (skipped for a bank that pays nothing out), and that needs the levers named in `needs`
     * (skipped, with the reason, for a subject without them).
     */
    const payIt = (name: string, body: () => Promise<void>, ...needs: Array<keyof typeof lacking>) =>
      it(name, async (ctx) => {
        if (s.available === false) return ctx.skip("this bank pays nothing out: the app refuses before pay")
        const missing = needs.map((lever) => lacking[lever]()).filter((why) => why !== false)
        if (missing.length > 0) return ctx.skip(missing.join("; "))
        await body()
      })

    it("available answers a boolean: true for a bank that pays out, false for none configured", async () => {
      const available = await exit((p) => p.available)
      expect(outcome(available)).toBe("success")
      const answer = Exit.isSuccess(available) ? available.value : undefined
      expect(typeof answer).toBe("boolean")
      expect(answer).toBe(s.available ?? true)
    })

    it("not available: pay pays nothing (the app refuses the withdrawal before it asks)", async (ctx) => {
      if (s.available !== false) return ctx.skip("this bank pays out: the cases that pay run instead")
      const answer = await exit((p) => p.pay(request(10_000)))
      expect(Exit.isSuccess(answer) && answer.value._tag === "Paid").toBe(false)
    })

    payIt("pays a transfer to a valid bank account: Paid", async () => {
      expect(await pay(request(12_345))).toEqual({ _tag: "Paid" })
      expect(await pay(request(1, bankAccount("1")))).toEqual({ _tag: "Paid" })
    })

    payIt(
      "a transfer the bank refuses is answered Failed with a reason, never ProviderUnavailable",
      async () => {
        const answer = await exit((p) => p.pay(refused(10_000)))
        expect(outcome(answer)).toBe("success")
        const result = Exit.isSuccess(answer) ? answer.value : undefined
        expect(result?._tag).toBe("Failed")
        const reason = result?._tag === "Failed" ? result.reason : ""
        expect(reason.trim()).not.toBe("")
        if (s.refusal!.reason !== undefined) expect(reason).toBe(s.refusal!.reason)
      },
      "refusal"
    )

    payIt("idempotent by withdrawal: the same one again answers the same", async () => {
      const r = request(15_000)
      const first = await pay(r)
      expect(first).toEqual({ _tag: "Paid" })
      expect(await pay(r)).toEqual(first)
      // Another withdrawal to the same account and amount is another transfer, paid in its own right.
      expect(await pay({ ...r, withdrawalId: randomUUID() })).toEqual({ _tag: "Paid" })
    })

    payIt(
      "idempotent by withdrawal: a refused one asked again is refused again, never paid",
      async () => {
        const r = refused(15_100)
        const first = await pay(r)
        expect(first._tag).toBe("Failed")
        expect(await pay(r)).toEqual(first)
      },
      "refusal"
    )

    payIt("idempotent under a race: eight payouts of one withdrawal at once answer one result", async () => {
      for (let round = 0; round < 5; round++) {
        const answers = await race(request(16_000 + round))
        expect(answers).toHaveLength(8)
        expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1)
        expect(answers[0]).toEqual({ _tag: "Paid" })
      }
    })

    payIt(
      "one transfer per withdrawal, whatever the retries and races; none for a refused one",
      async () => {
        const transfers = s.transfers!
        const once = request(17_000)
        await pay(once)
        await pay(once)
        expect(transfers(once.withdrawalId)).toBe(1)
        for (let round = 0; round < 5; round++) {
          const r = request(17_100 + round)
          await race(r)
          expect(transfers(r.withdrawalId), `round ${round}`).toBe(1)
        }
        if (s.refusal !== undefined) {
          const no = refused(17_200)
          await pay(no)
          await race(no)
          expect(transfers(no.withdrawalId)).toBe(0)
        }
      },
      "transfers"
    )

    payIt(
      "the bank unreachable: ProviderUnavailable, nothing paid; once it is back, the retry pays exactly once",
      async () => {
        const r = request(18_000)
        await s.outage!.down()
        try {
          expect(outcome(await exit((p) => p.pay(r)))).toBe("ProviderUnavailable")
          expect(s.transfers!(r.withdrawalId)).toBe(0)
        } finally {
          await s.outage!.up()
        }
        const answer: PayoutResult = await pay(r)
        expect(answer).toEqual({ _tag: "Paid" })
        expect(await pay(r)).toEqual(answer)
        expect(s.transfers!(r.withdrawalId)).toBe(1)
      },
      "outage",
      "transfers"
    )
  })
