import { Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"

/** Identifier source; a port so that tests can make ids predictable. */
export class Ids extends Context.Tag("Ids")<Ids, { readonly next: Effect.Effect<string> }>() {
  static readonly Live = Layer.succeed(Ids, { next: Effect.sync(randomUUID) })
}
