import type { Mode } from "../../../domain/mode.ts"
import type { DeclineCode } from "../../../ports/Acquirer.ts"

// The sandbox's test cards (CONTRACT §7). Any future expiry and any CVV; all pass Luhn.
// Numbers not listed here are approved when they pass Luhn and belong to a supported brand.

/** What the sandbox acquirer does with a listed card, for both charge and (where noted) verify. */
export type TestCardOutcome =
  | { readonly _tag: "Approve"; readonly dispute?: true }
  | { readonly _tag: "Decline"; readonly code: DeclineCode; readonly message: string; readonly atVerify: boolean }
  | { readonly _tag: "Fail" }

const decline = (code: DeclineCode, message: string, atVerify = false): TestCardOutcome => ({
  _tag: "Decline",
  code,
  message,
  atVerify
})

export const testCardOutcomes: ReadonlyMap<string, TestCardOutcome> = new Map([
  ["4000000000000002", decline("card_declined", "The card was declined.")],
  ["4000000000009995", decline("insufficient_funds", "The card has insufficient funds.")],
  // Rejected at tokenization too: a zero-amount verification sees expiry and CVV problems.
  ["4000000000000069", decline("expired_card", "The card has expired.", true)],
  ["4000000000000127", decline("incorrect_cvc", "The card's security code is incorrect.", true)],
  ["4000000000000119", { _tag: "Fail" }],
  // Approved, then disputed by itself: the acquirer announces a chargeback (CONTRACT-v1 §10).
  ["4000000000000259", { _tag: "Approve", dispute: true }]
])

/** The card the sandbox antifraud blocks. */
export const fraudTestCard = "4100000000000019"

/** The card the sandbox antifraud sends to manual review (CONTRACT-v1 §3: `4000000000000101` → `antifraud`). */
export const reviewTestCard = "4000000000000101"

/**
 * What an antifraud answers a test card regardless of its rules: in test mode only, and for the whole
 * number. In live mode a test number is a card like any other (docs/providers.md "Test and live modes"),
 * and a real card that shares a test card's BIN and last four digits is no test card.
 */
export const forcedAntifraud = (pan: string, mode: Mode | undefined): "reject" | "review" | null =>
  mode === "live" ? null : pan === fraudTestCard ? "reject" : pan === reviewTestCard ? "review" : null

/**
 * The sandbox PSP and bank answer as if they were down for a charge of this amount (R$ 503,01), so a
 * merchant can see the 503 with Retry-After that a real provider's outage gives (README "Sandbox test cards
 * and endpoints").
 */
export const OUTAGE_AMOUNT = 50_301
