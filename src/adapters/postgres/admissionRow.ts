import { Option, Schema } from "effect"
import { AccountId } from "../../domain/ids.ts"
import { Mode } from "../../domain/mode.ts"
import type { Admission } from "../../ports/Admission.ts"
import { claimOutcome } from "./claimOutcome.ts"

/**
 * A row of `api_key_admit` or `api_key_admit_claim` (migrations 0010, 0012, 0042) with the tenant's mode;
 * the claim's columns only with a claim. Columns read ahead beside them (readAhead.ts) are left to their
 * own decoders: their names are none of these. Two plain structs rather than one with optional claim
 * columns and defaults: a struct with defaults decodes through a transformation, 5 µs a row against
 * 1.8 (docs/performance.md "The admission's row"), on every authenticated request.
 */
const Row = Schema.Struct({
  keyId: Schema.String,
  accountId: AccountId,
  mode: Mode,
  scopes: Schema.NullOr(Schema.Array(Schema.String)),
  rateLimit: Schema.Number,
  granted: Schema.Boolean,
  allowed: Schema.Boolean,
  remaining: Schema.Number,
  resetMs: Schema.Number
})
const ClaimRow = Schema.Struct({
  ...Row.fields,
  claim: Schema.NullOr(Schema.String),
  claimResourceId: Schema.NullOr(Schema.String),
  claimStatus: Schema.NullOr(Schema.Number),
  claimBody: Schema.NullOr(Schema.String)
})
export type AdmissionRow = typeof Row.Type & Partial<typeof ClaimRow.Type>

/** The rows, decoded at once (a row that does not decode is a defect: it throws, and the effect dies). */
export const decodeAdmissionRows: (raw: unknown) => ReadonlyArray<AdmissionRow> = Schema.decodeUnknownSync(
  Schema.Array(Row)
)
/** The rows of `api_key_admit_claim`, with the claim's columns. */
export const decodeClaimRows: (raw: unknown) => ReadonlyArray<AdmissionRow> = Schema.decodeUnknownSync(
  Schema.Array(ClaimRow)
)

/** What a row says of its request: refused its scope, or admitted with its slot's decision and its claim. */
export const toAdmission = (row: AdmissionRow): Admission => {
  const principal = {
    accountId: row.accountId,
    mode: row.mode,
    keyId: row.keyId,
    scopes: row.scopes,
    rateLimit: row.rateLimit
  }
  return row.granted
    ? {
        _tag: "Admitted",
        principal,
        decision: { allowed: row.allowed, limit: row.rateLimit, remaining: row.remaining, resetMs: row.resetMs },
        claim:
          row.claim === undefined || row.claim === null
            ? undefined
            : claimOutcome({
                outcome: row.claim,
                resourceId: row.claimResourceId ?? null,
                responseStatus: row.claimStatus ?? null,
                responseBody: row.claimBody ?? null
              })
      }
    : { _tag: "Forbidden", principal }
}

/** A record read ahead beside the admission's columns: all null when the key's account has none such. */
export const aheadIn = <A>(raw: unknown, decode: (raw: unknown) => A): Option.Option<A> =>
  (raw as { readonly id?: unknown }).id == null ? Option.none() : Option.some(decode(raw))
