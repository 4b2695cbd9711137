import { Schema } from "effect"
import { Customer } from "../../domain/customer.ts"
import { CustomerId } from "../../domain/ids.ts"

/** A customer row as the database gives it (camelCased); a row that does not decode is a defect. */
export const CustomerRow = Schema.Struct({
  id: CustomerId,
  name: Schema.String,
  email: Schema.String,
  document: Schema.String,
  phone: Schema.String,
  createdAt: Schema.DateFromSelf
})
export type CustomerRow = typeof CustomerRow.Type

/**
 * The columns CustomerRow reads, named: a prepared `*` would fail once a migration adds one (prepared.ts).
 * Read by CustomerRepoLive, and ahead by KeyAdmissionLive beside the admission's columns, none of whose
 * names they share.
 */
export const CUSTOMER_COLUMNS = "id, name, email, document, phone, created_at"

// The row schema checks every field the class does (its createdAt is a Date already): the class is built
// without checking the same values twice on every read.
export const toCustomer = (row: unknown) =>
  Customer.make(Schema.decodeUnknownSync(CustomerRow)(row), { disableValidation: true })
