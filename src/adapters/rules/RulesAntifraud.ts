import { createHmac } from "node:crypto"
import { Clock, Effect, FiberRef, Layer } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { keyFromVault } from "../../config/vaultKeys.ts"
import { assess } from "../../domain/antifraud.ts"
import { Antifraud, AntifraudSignals, type AntifraudRequest } from "../../ports/Antifraud.ts"
import { CurrentMode } from "../../ports/Modes.ts"
import { forcedAntifraud } from "../providers/sandbox/testCards.ts"
import { fn } from "../../spans.ts"

/**
 * The default antifraud (CONTRACT-v1 §9, docs/antifraud.md): gathers the signals of one charge (its
 * velocity counts, the account's usual amount) and lets the domain's rules score them.
 *
 * Counter keys are HMAC-SHA-256 digests under a key derived (HKDF) from CARD_VAULT_KEY, so that no
 * PAN or document is stored and a leaked counters table cannot be matched against a list of cards
 * without the server's secret.
 */
export const RulesAntifraudLive = Layer.effect(
  Antifraud,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const signals = yield* AntifraudSignals
    const settings = config.antifraud
    const secret = keyFromVault(config, "antifraud-counter-key")
    const digest = (kind: string, value: string) =>
      createHmac("sha256", secret).update(`${kind}:${value}`).digest("hex")

    return Antifraud.of({
      assess: fn("RulesAntifraud.assess")(function* (request: AntifraudRequest) {
        const now = yield* Clock.currentTimeMillis
        const bucketOf = (windowSeconds: number) => {
          const bucket = Math.floor(now / 1000 / windowSeconds)
          return { bucket, endsAt: new Date((bucket + 1) * windowSeconds * 1000) }
        }
        const [cardCount, documentCount, history] = yield* Effect.all(
          [
            signals.bump(
              request.accountId,
              "card",
              digest("card", request.pan),
              bucketOf(settings.cardVelocity.windowSeconds)
            ),
            request.buyer.document === null
              ? Effect.succeed(null)
              : signals.bump(
                  request.accountId,
                  "document",
                  digest("document", request.buyer.document),
                  bucketOf(settings.documentVelocity.windowSeconds)
                ),
            signals.usualCardAmount(request.accountId)
          ],
          { concurrency: "unbounded" }
        )
        return assess(
          {
            amount: request.amount,
            cardCount,
            documentCount,
            history,
            holderName: request.holderName,
            customerName: request.buyer.name,
            email: request.buyer.email,
            ip: request.buyer.ip,
            forced: forcedAntifraud(request.pan, yield* FiberRef.get(CurrentMode))
          },
          settings
        )
      })
    })
  })
)
