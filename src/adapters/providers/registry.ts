import { type ConfigError, Effect, Layer } from "effect"
import { Acquirer } from "../../ports/Acquirer.ts"
import { Metrics } from "../../ports/Metrics.ts"
import { CieloConfigFromEnv } from "./cielo/config.ts"
import { CIELO, makeCieloAcquirer } from "./cielo/CieloAcquirer.ts"
import { failoverConfig } from "./failover/config.ts"
import { type AcquirerService, makeFailoverAcquirer } from "./failover/FailoverAcquirer.ts"
import { LoopbackAcquirerLive } from "./loopback/index.ts"
import { RedeConfigFromEnv } from "./rede/config.ts"
import { makeRedeAcquirer, REDE } from "./rede/RedeAcquirer.ts"

/**
 * The card acquirers live mode can name in `LIVE_ACQUIRERS` (docs/configuration.md), each built from
 * its own variables only when named. Adding an acquirer is one entry here and one folder beside this
 * file (docs/providers.md "Adding a provider"). `loopback` is the test-only provider (loopback/client.ts).
 */
const members: Readonly<Record<string, Effect.Effect<AcquirerService, ConfigError.ConfigError>>> = {
  [CIELO]: Effect.map(CieloConfigFromEnv, makeCieloAcquirer),
  [REDE]: Effect.map(RedeConfigFromEnv, makeRedeAcquirer),
  loopback: Effect.provide(Acquirer, LoopbackAcquirerLive)
}

/** The names `LIVE_ACQUIRERS` may list. */
export const LIVE_ACQUIRER_NAMES = Object.keys(members)

/**
 * Live mode's Acquirer: the members `LIVE_ACQUIRERS` lists, always behind the failover router (one member
 * is a list of one), so that every live charge records the acquirer that charged it, goes through the
 * circuit breaker and is counted per acquirer (docs/providers.md "Failover rules").
 */
export const LiveAcquirerLive = Layer.effect(
  Acquirer,
  Effect.gen(function* () {
    const options = yield* failoverConfig(LIVE_ACQUIRER_NAMES)
    const metrics = yield* Metrics
    const built = new Map<string, AcquirerService>()
    for (const name of new Set([...options.order, ...Object.values(options.byBrand).flat()])) {
      built.set(name, yield* members[name]!)
    }
    return makeFailoverAcquirer(built, options, metrics)
  })
)
