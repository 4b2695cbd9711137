import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { KeyAdmission } from "../../ports/Admission.ts"
import { IdempotencyStore } from "../../ports/IdempotencyStore.ts"
import { admitClaiming } from "./admitClaiming.ts"
import { admitTogether } from "./admitTogether.ts"
import { ClaimOwner, ClaimOwnerLive } from "./ClaimOwner.ts"
import { IdempotencyStoreLive } from "./IdempotencyStoreLive.ts"
import { keepReadAhead, type ReadAhead } from "./readAhead.ts"
import { traced } from "./traced.ts"

/** The admission, and the record read ahead for the request's repository to take (readAhead.ts). */
const kept = <A>({ admission, ahead }: { readonly admission: A; readonly ahead: Option.Option<ReadAhead> }) =>
  Option.isSome(ahead) ? Effect.as(keepReadAhead(ahead.value), admission) : Effect.succeed(admission)

/**
 * One statement for many requests of a key: `api_key_admit` (migrations 0010, 0042) with the tenant's mode
 * (0018) read beside it by its primary key. Requests with an idempotency claim or an order to pay (the
 * charges) go to `api_key_admit_claims` (0043: admitClaiming.ts), which claims and reads the order once a
 * request is admitted; the rest go together by the kind of record they read (admitTogether.ts). Either
 * way a request goes with the others of its key that arrive while one statement of its kind is in flight.
 */
export const KeyAdmissionLive = Layer.scoped(
  KeyAdmission,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const owner = yield* ClaimOwner
    const store = yield* IdempotencyStore
    const together = yield* admitTogether(sql)
    const claiming = yield* admitClaiming(sql, owner.id, ({ admission }, { claim }) => {
      // The caller went away while it waited: its acquired claim is freed for the client's retry at once
      // (its resource id kept, so the retry resumes it), not after its 60 s lease.
      if (claim === undefined || Option.isNone(admission) || admission.value._tag !== "Admitted") return Effect.void
      const { claim: made, principal } = admission.value
      if (made?._tag !== "Acquired") return Effect.void
      // Best effort, as a request's own giving up is: the lease remains the backstop.
      return Effect.catchAllCause(store.release(principal.accountId, claim.key), () => Effect.void)
    })
    return KeyAdmission.of(
      traced("KeyAdmission", {
        admit: (digest, neededScope, claim, order, read) =>
          claim === undefined && order === undefined
            ? Effect.flatMap(together({ digest, neededScope, read }), kept)
            : Effect.flatMap(claiming({ digest, neededScope, claim, order }), kept)
      })
    )
  })
).pipe(Layer.provide(IdempotencyStoreLive), Layer.provide(ClaimOwnerLive))
