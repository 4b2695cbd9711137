import fc from "fast-check"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { AccountId, PaymentLinkId } from "./ids.ts"
import {
  changedLink,
  LINK_METHODS,
  type LinkChanges,
  type PaymentLinkRecord,
  V1_LINK_METHOD,
  visitTerms
} from "./paymentLink.ts"

/** A link as stored: its own rules hold (installments only with cards, uses within the cap). */
const link: fc.Arbitrary<PaymentLinkRecord> = fc
  .record({
    methods: fc.uniqueArray(fc.constantFrom(...LINK_METHODS), { minLength: 1, maxLength: 3 }),
    installments: fc.integer({ min: 1, max: 12 }),
    uses: fc.integer({ min: 0, max: 50 }),
    extraUses: fc.option(fc.integer({ min: 0, max: 50 })),
    amount: fc.option(fc.integer({ min: 1, max: 1_000_000 }))
  })
  .map(({ methods, installments, uses, extraUses, amount }) => ({
    id: PaymentLinkId.make("7f1c2b3a-0000-4000-8000-000000000001"),
    accountId: AccountId.make("7f1c2b3a-0000-4000-8000-000000000002"),
    name: "Camiseta",
    description: "Tamanho M",
    amount,
    minAmount: amount === null ? 100 : null,
    maxAmount: null,
    items: [],
    methods,
    maxInstallments: methods.includes("CARD") ? installments : 1,
    expiresAt: null,
    maxUses: extraUses === null ? null : uses + extraUses,
    uses,
    active: true,
    metadata: { campaign: "natal" },
    createdAt: new Date(0),
    updatedAt: new Date(0)
  }))

/** Changes as the interface decodes them: each field absent, set, or (where nullable) null. */
const changes: fc.Arbitrary<LinkChanges> = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 20 }),
    description: fc.option(fc.string({ maxLength: 20 })),
    methods: fc.uniqueArray(fc.constantFrom(...LINK_METHODS), { minLength: 1, maxLength: 3 }),
    maxInstallments: fc.integer({ min: 1, max: 12 }),
    expiresAt: fc.option(fc.date({ noInvalidDate: true })),
    maxUses: fc.option(fc.integer({ min: 1, max: 100 })),
    metadata: fc.option(fc.dictionary(fc.string({ maxLength: 5 }), fc.integer()))
  },
  { requiredKeys: [] }
)

describe("changedLink (docs/payment-links.md 'Editing a link')", () => {
  it("an accepted edit keeps the link's rules, its amount, uses and identity, and every field not asked", () => {
    fc.assert(
      fc.property(link, changes, (before, asked) => {
        const result = changedLink(before, asked)
        if (!("link" in result)) return
        const after = result.link
        expect(after.maxInstallments > 1 ? after.methods.includes("CARD") : true).toBe(true)
        if (after.maxUses !== null) expect(after.maxUses).toBeGreaterThanOrEqual(after.uses)
        const { amount, minAmount, maxAmount, uses, id, accountId, active, createdAt } = before
        expect(after).toMatchObject({ amount, minAmount, maxAmount, uses, id, accountId, active, createdAt })
        for (const [field, value] of Object.entries(asked)) expect(after[field as keyof typeof after]).toEqual(value)
        for (const field of ["name", "description", "items", "expiresAt", "maxUses", "metadata"] as const)
          if (!(field in asked)) expect(after[field]).toEqual(before[field])
      })
    )
  })

  it("refuses exactly a cap below the uses made, or installments without cards, naming each field", () => {
    fc.assert(
      fc.property(link, changes, (before, asked) => {
        const result = changedLink(before, asked)
        const maxUses = asked.maxUses === undefined ? before.maxUses : asked.maxUses
        const methods = asked.methods ?? before.methods
        const capBelow = maxUses !== null && maxUses < before.uses
        const installmentsWithoutCards = (asked.maxInstallments ?? 1) > 1 && !methods.includes("CARD")
        const expected = [...(installmentsWithoutCards ? ["max_installments"] : []), ...(capBelow ? ["max_uses"] : [])]
        expect("errors" in result ? result.errors.map((e) => e.field) : []).toEqual(expected)
      })
    )
  })

  it("taking cards away resets installments to 1, unless the same edit sets them", () => {
    fc.assert(
      fc.property(link, (before) => {
        const withCards = { ...before, methods: ["CARD", "PIX"] as const, maxInstallments: 6, maxUses: null }
        const result = changedLink(withCards, { methods: ["PIX"] })
        expect("link" in result && result.link.maxInstallments).toBe(1)
        expect(changedLink(withCards, { methods: ["PIX", "CARD"] })).toMatchObject({ link: { maxInstallments: 6 } })
        expect(changedLink(withCards, { methods: ["PIX"], maxInstallments: 2 })).toMatchObject({
          errors: [{ field: "max_installments" }]
        })
      })
    )
  })
})

describe("visitTerms (docs/payment-links.md 'The buyer's page')", () => {
  it("charges the row's method, amount, installments, items and metadata, or names the choice it refuses", () => {
    fc.assert(
      fc.property(
        link,
        fc.option(fc.constantFrom(...LINK_METHODS)),
        fc.option(fc.integer({ min: 0, max: 2_000_000 }), { nil: undefined }),
        (row, method, amount) => {
          const terms = visitTerms(row, { method, amount })
          const methodOk = method !== null && row.methods.includes(method)
          const amountOk =
            row.amount === null
              ? amount !== undefined && amount >= (row.minAmount ?? 1)
              : amount === undefined || amount === row.amount
          const refused = [...(methodOk ? [] : ["method"]), ...(amountOk ? [] : ["amount"])]
          if (Either.isLeft(terms)) {
            expect(terms.left.map((e) => e.field)).toEqual(refused)
            if (!methodOk)
              expect(terms.left[0]!.message).toBe(
                `method must be one of this link's: ${row.methods.map((m) => V1_LINK_METHOD[m]).join(", ")}`
              )
            return
          }
          expect(refused).toEqual([])
          expect(terms.right).toEqual({
            method,
            amount: row.amount ?? amount,
            maxInstallments: row.maxInstallments,
            items: row.items,
            metadata: { ...row.metadata, payment_link_id: row.id }
          })
        }
      )
    )
  })
})
