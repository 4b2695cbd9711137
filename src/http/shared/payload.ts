import { Schema } from "effect"

/**
 * Request bodies report every broken field at once (`errors`), not only the first, and a field the
 * operation does not declare is a 400 naming it (docs/api.md "Unknown fields"): the OpenAPI document
 * says `additionalProperties: false`, and a misspelt optional field silently ignored is a charge made
 * without what the merchant meant to send. The option reaches every nested struct of the body.
 */
export const payload = <A, I, R>(schema: Schema.Schema<A, I, R>) =>
  schema.annotations({ parseOptions: { errors: "all", onExcessProperty: "error" } })

/** Whether `value` holds a number JSON cannot write back, at any depth. */
const holdsNonFinite = (value: unknown, depth = 0): boolean =>
  typeof value === "number"
    ? !Number.isFinite(value)
    : value !== null && typeof value === "object" && depth < 64
      ? Object.values(value).some((v) => holdsNonFinite(v, depth + 1))
      : false

/**
 * A free JSON value (metadata) as it will be stored and echoed: `1e400` parses to Infinity, which JSON
 * writes back as `null`, so the merchant's value would come back changed without a word (docs/input.md).
 */
export const JsonValue = Schema.Unknown.pipe(
  Schema.filter((value) => !holdsNonFinite(value) || "must hold only numbers JSON can write (finite)")
)
