import { CustomerId } from "./ids.ts"
import { Schema } from "effect"

export class Customer extends Schema.Class<Customer>("Customer")({
  id: CustomerId,
  name: Schema.String,
  email: Schema.String,
  document: Schema.String,
  phone: Schema.String,
  createdAt: Schema.Date
}) {}

/**
 * The fields of a creation that the existing customer with the same CPF does not take (interface-v2
 * Customers rule 1 answers with the existing record unchanged): the caller is told which ones, so that
 * a changed name or email is not lost without a word (docs/api.md "Customers").
 */
export const ignoredFields = (
  sent: { readonly name: string; readonly email: string; readonly phone: string },
  existing: Customer
): ReadonlyArray<"name" | "email" | "phone"> =>
  (["name", "email", "phone"] as const).filter((field) => sent[field] !== existing[field])
