import { Effect } from "effect"
import { NotFound } from "../../domain/errors.ts"
import { TransactionId } from "../../domain/ids.ts"
import { isUuid } from "../../domain/uuid.ts"

/** A hash that is not a UUID names no transaction: 404, as for another account's (CONTRACT-v1 §1). */
export const knownHash = (hash: string) =>
  isUuid(hash)
    ? Effect.succeed(TransactionId.make(hash))
    : Effect.fail(new NotFound({ message: "transaction not found" }))
