import type { BankAccount, SubaccountRecord } from "../../../domain/subaccount.ts"
import { isoInSaoPaulo } from "../../../domain/time.ts"

/** A bank account in v1's words (subaccounts and withdrawals). */
export const v1BankAccount = (b: BankAccount) => ({
  bank_code: b.bankCode,
  agency: b.agency,
  agency_digit: b.agencyDigit,
  account: b.account,
  account_digit: b.accountDigit,
  type: b.type
})

/** The v1 subaccount (CONTRACT-v1 §8), timestamps with São Paulo's offset. */
export const v1Subaccount = (s: SubaccountRecord) => ({
  id: s.id,
  name: s.name,
  document: s.document,
  document_type: s.documentType,
  email: s.email,
  phone: s.phone,
  bank_account: v1BankAccount(s.bankAccount),
  status: s.status,
  created_at: isoInSaoPaulo(s.createdAt),
  updated_at: isoInSaoPaulo(s.updatedAt)
})
