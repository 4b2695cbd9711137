import { Schema } from "effect"

/** Request bodies report every broken field at once (`errors`), not only the first. */
export const payload = <A, I, R>(schema: Schema.Schema<A, I, R>) =>
  schema.annotations({ parseOptions: { errors: "all", onExcessProperty: "ignore" } })
