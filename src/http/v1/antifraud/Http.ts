import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Transactions } from "../../../app/Transactions.ts"
import { NotFound } from "../../../domain/errors.ts"
import { GatewayApi } from "../../Api.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { knownHash } from "../hash.ts"
import { renderedV1 } from "../render.ts"

export const V1AntifraudHttp = HttpApiBuilder.group(GatewayApi, "v1Antifraud", (handlers) =>
  Effect.gen(function* () {
    const transactions = yield* Transactions
    return handlers.handle("get", ({ path }) =>
      Effect.gen(function* () {
        const { accountId } = yield* CurrentPrincipal
        const id = yield* knownHash(path.transaction_hash)
        const t = yield* transactions.get(accountId, id)
        // Only card charges are analysed: a PIX or billet has no analysis to show.
        if (t.method !== "CARD" || t.antifraud === null) {
          return yield* new NotFound({ message: "no antifraud analysis for this transaction" })
        }
        const { decision, reason, score, status } = t.antifraud
        return {
          success: true as const,
          data: { transaction_hash: t.id, status, score: Math.round(score), decision, reason }
        }
      }).pipe(renderedV1)
    )
  })
)
