import { Schema } from "effect"

/**
 * Request bodies report every broken field at once (`errors`), not only the first, and a field the
 * operation does not declare is a 400 naming it (docs/api.md "Unknown fields"): the OpenAPI document
 * says `additionalProperties: false`, and a misspelt optional field silently ignored is a charge made
 * without what the merchant meant to send. The option reaches every nested struct of the body.
 */
export const payload = <A, I, R>(schema: Schema.Schema<A, I, R>) =>
  schema.annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })
