import { Effect, FiberRef, Schema } from "effect"
import { CurrentMode } from "../../ports/Modes.ts"

/**
 * `livemode` of the records an API key reads (issue 24 §1): whether the key's tenant is the live one. A
 * record is only ever read by a key of its own mode, so the key's mode is the record's; the key's
 * admission set it on the request (http/shared/securityLive.ts).
 *
 * Live records say `livemode: true`; test records leave the field out, so that test mode answers
 * exactly what it answered before modes existed: the interfaces' record shapes are compared key for
 * key by their clients and suites (docs/decisions.md "Test and live modes").
 */
export const livemode = Effect.map(FiberRef.get(CurrentMode), (mode) => mode === "live")

export const LivemodeField = Schema.optional(
  Schema.Literal(true).annotations({
    description: "present (true) on a record of live mode; absent on test mode's (docs/providers.md)"
  })
)

/** The field a record of this mode carries: `{ livemode: true }` in live mode, nothing in test mode. */
export const livemodeOf = (live: boolean): { readonly livemode?: true } => (live ? { livemode: true } : {})

/** A record presented with its mode. */
export const withLivemode = <A extends object>(record: A) =>
  Effect.map(livemode, (live) => ({ ...record, ...livemodeOf(live) }))
