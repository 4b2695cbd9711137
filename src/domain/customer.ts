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
