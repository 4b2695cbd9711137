import { amountDue, type ChargeTerms, type PaymentParts } from "./chargeTerms.ts"

/** What a bank's settlement file says of one paid title (CNAB 240 segments T and U). */
export interface BankPaid {
  /** What the buyer paid (U 78–92). */
  readonly paid: number
  /** Fine and interest together, as the bank collected them (U 18–32: "juros/multa/encargos"). */
  readonly charges: number
  readonly discount: number
  readonly abatement: number
}

/**
 * A boleto's payment in parts from the bank's own amounts (docs/boleto.md "What a payment records"): the
 * discount and abatement as the bank gave them; its charges split into the fine our terms ask that day
 * (at most what it charged) and interest for the rest, since the file carries them as one amount; and
 * whatever its amounts leave unexplained goes as `paymentParts` does — interest when more was paid,
 * discount when less — so the parts always add up to what was paid.
 */
export const bankPaymentParts = (
  principal: number,
  dueDate: string,
  terms: ChargeTerms | undefined,
  paidOn: string,
  bank: BankPaid
): PaymentParts => {
  const fine = Math.min(amountDue(principal, dueDate, terms, paidOn).fine, bank.charges)
  const interest = bank.charges - fine
  const difference = bank.paid - (principal - bank.abatement - bank.discount + fine + interest)
  return {
    paidOn,
    amount: bank.paid,
    principal,
    abatement: bank.abatement,
    discount: bank.discount + Math.max(0, -difference),
    fine,
    interest: interest + Math.max(0, difference)
  }
}
