import { Effect, Schedule } from "effect"
import { ApiKeyRepo } from "../ports/ApiKeyRepo.ts"

/**
 * `lastUsedAt` without a database write per request: requests mark their key in memory and one
 * batched UPDATE per second (and one at shutdown) writes the latest times.
 */
export class KeyUsage extends Effect.Service<KeyUsage>()("KeyUsage", {
  scoped: Effect.gen(function* () {
    const keys = yield* ApiKeyRepo
    let pending = new Map<string, Date>()
    const flush = Effect.suspend(() => {
      if (pending.size === 0) return Effect.void
      const batch = pending
      pending = new Map()
      return keys.touch(batch)
    })
    yield* Effect.addFinalizer(() => flush)
    yield* flush.pipe(
      Effect.catchAllCause(Effect.logWarning),
      Effect.repeat(Schedule.spaced("1 second")),
      Effect.forkScoped
    )
    return {
      mark: (keyId: string) => Effect.sync(() => void pending.set(keyId, new Date())),
      flush
    }
  })
}) {}
