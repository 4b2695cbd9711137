import { Context, Effect, FiberRef } from "effect"
import type { AccountId } from "../domain/ids.ts"
import type { Mode } from "../domain/mode.ts"

/**
 * The mode the current work runs in, which picks the rails behind every payment port (Acquirer,
 * PixProvider, BoletoProvider, Payouts): the API key's tenant on a request (set where the key is
 * admitted), the tenant of the record a job works on (`Tenancy.within`). Unset by default: a port
 * called outside a tenant is a defect, never a guess (docs/decisions.md "Test and live modes").
 */
export const CurrentMode: FiberRef.FiberRef<Mode | undefined> = FiberRef.unsafeMake<Mode | undefined>(undefined)

/** Runs `effect` in `mode`. */
export const inMode =
  (mode: Mode) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locally(effect, CurrentMode, mode)

/** A tenant's mode, which never changes once the tenant exists. */
export class Tenancy extends Context.Tag("Tenancy")<
  Tenancy,
  {
    /** The mode of a tenant that exists; an unknown account id is a defect. */
    readonly modeOf: (accountId: AccountId) => Effect.Effect<Mode>
  }
>() {
  /** Runs `effect` in the mode of the tenant `accountId` (jobs, and sweeps over every tenant). */
  static within =
    (accountId: AccountId) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Tenancy> =>
      Effect.flatMap(Tenancy, (t) => Effect.flatMap(t.modeOf(accountId), (mode) => inMode(mode)(effect)))
}

/**
 * What the operator configured for live mode (docs/providers.md "Test and live modes"). `missing` says,
 * in the operator's words (the variables), why live mode cannot be turned on; empty when it can.
 */
export class LiveRails extends Context.Tag("LiveRails")<
  LiveRails,
  {
    readonly missing: ReadonlyArray<string>
  }
>() {}
