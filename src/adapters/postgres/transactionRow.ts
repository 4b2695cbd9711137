import { Schema } from "effect"
import { TransactionRecord } from "../../domain/transaction.ts"

/**
 * A transaction record's columns, as TransactionRecord decodes them, named: a prepared `*` would fail once a
 * migration adds one (prepared.ts). Read by TransactionRepoLive and DashboardReadsLive, and ahead by
 * KeyAdmissionLive beside the admission's columns, none of whose names they share.
 */
export const COLUMNS = `id, origin, order_id, customer_id, method, amount, amount_total, amount_interest, buyer,
  products, metadata, comment, split, fee, status, refunded_amount, refund_reserved, installments, details,
  decline_code, acquirer_reference, acquirer, card_token, antifraud, paid_at, expires_at, created_at, updated_at`

/** A row of COLUMNS (camelCased by the client), read ahead; a row that does not decode is a defect. */
export const toTransactionRecord = Schema.decodeUnknownSync(TransactionRecord)
