import type { DeclineCode } from "../../../ports/Acquirer.ts"

/**
 * e.Rede's `returnCode` → our decline codes, documented in docs/providers.md "e.Rede return codes"
 * (e.Rede's return-code table, "Códigos de retorno" of its v1 API, developer.userede.com.br/e-rede, as the
 * woo-rede plugin reproduces it: LinkNacional/woo-rede, Includes/LknIntegrationRedeForWoocommerceAbecsCodes.php).
 * Codes 1–99 are mostly request validations (a field is wrong: nothing was charged), but that table's
 * "integration returns" also hold issuer declines (58, 72, 79, 80, 83, 84, 86: REDE_DECLINES, read first);
 * 100 and up are the issuer's or Rede's answer.
 */
export const REDE_APPROVED = "00"
/** "Refund successful": the refund is made. */
export const REDE_REFUNDED = "359"
/**
 * "Refund request has been successful": e.Rede accepted the refund and completes it later (the table's
 * cancellation returns, 351–374). Not proof it is made yet, and never a refusal: docs/providers.md.
 */
export const REDE_REFUND_REQUESTED = "360"
export const REDE_ZERO_DOLLAR_OK = "174"
/** "Transaction previously sent": a reference already used (the fake's reading; see docs/providers.md). */
export const REDE_DUPLICATE_REFERENCE = "122"

export const REDE_DECLINES: ReadonlyMap<string, DeclineCode> = new Map<string, DeclineCode>([
  // Issuer declines numbered below 100 (the table's "integration returns"): declines, not validations, so
  // the buyer is told and no other acquirer is tried (docs/providers.md "Failover rules" 3).
  ["58", "card_declined"], // Unauthorized. Contact issuer.
  ["72", "card_declined"], // Contact issuer.
  ["79", "expired_card"], // Expired card. Transaction cannot be resubmitted. Contact issuer.
  ["80", "insufficient_funds"], // Unauthorized. Contact issuer. (Insufficient funds)
  ["83", "card_declined"], // Unauthorized. Contact issuer.
  ["84", "card_declined"], // Unauthorized. Transaction cannot be resubmitted. Contact issuer.
  ["86", "expired_card"], // Expired card
  ["101", "card_declined"], // Unauthorized. Problems on the card, contact the issuer.
  ["102", "card_declined"], // Unauthorized. Verify the situation of the store with the issuer.
  ["105", "card_declined"], // Unauthorized. Card restrictions.
  ["106", "card_declined"], // Error in issuer processing.
  ["109", "card_declined"], // Unauthorized. Nonexistent card.
  ["111", "insufficient_funds"], // Unauthorized. Insufficient funds.
  ["112", "expired_card"], // Unauthorized. Expiry date expired.
  ["113", "fraud_suspected"], // Unauthorized. Identified moderate risk by the issuer.
  ["118", "card_declined"], // Unauthorized. Card locked.
  ["119", "incorrect_cvc"], // Unauthorized. Invalid security code.
  ["175", "card_declined"] // Zero dollar transaction denied.
])

export const redeDecline = (returnCode: string): DeclineCode => REDE_DECLINES.get(returnCode) ?? "card_declined"

/** An issuer's decline, whatever its number (below 100 too). */
export const isDeclineCode = (returnCode: string) => REDE_DECLINES.has(returnCode)

/**
 * A validation error (1–99 but the issuer declines among them): the request was refused before any
 * authorisation.
 */
export const isValidationCode = (returnCode: string) =>
  /^\d{1,2}$/.test(returnCode) && returnCode !== REDE_APPROVED && !isDeclineCode(returnCode)

/** Validation codes about the card's own fields (holder, number, expiry, security code): a decline, not a failure. */
export const REDE_CARD_FIELD_CODES: ReadonlySet<string> = new Set(["28", "37", "38", "39", "40", "41", "42", "43"])
