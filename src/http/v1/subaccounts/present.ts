import type { SubaccountRecord } from "../../../domain/subaccount.ts"
import { isoInSaoPaulo } from "../../../domain/time.ts"

/** The v1 subaccount (CONTRACT-v1 §8), timestamps with São Paulo's offset. */
export const v1Subaccount = (s: SubaccountRecord) => ({
  id: s.id,
  name: s.name,
  document: s.document,
  document_type: s.documentType,
  email: s.email,
  phone: s.phone,
  bank_account: {
    bank_code: s.bankAccount.bankCode,
    agency: s.bankAccount.agency,
    agency_digit: s.bankAccount.agencyDigit,
    account: s.bankAccount.account,
    account_digit: s.bankAccount.accountDigit,
    type: s.bankAccount.type
  },
  status: s.status,
  created_at: isoInSaoPaulo(s.createdAt),
  updated_at: isoInSaoPaulo(s.updatedAt)
})
