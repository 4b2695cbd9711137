import { type ConfigError, Effect, Layer } from "effect"
import { Acquirer } from "../../ports/Acquirer.ts"
import { Metrics } from "../../ports/Metrics.ts"
import { SandboxAcquirerLive } from "../sandbox/SandboxAcquirer.ts"
import { CieloConfigFromEnv } from "./cielo/config.ts"
import { CIELO, makeCieloAcquirer } from "./cielo/CieloAcquirer.ts"
import { failoverConfig } from "./failover/config.ts"
import { type AcquirerService, makeFailoverAcquirer } from "./failover/FailoverAcquirer.ts"
import { RedeConfigFromEnv } from "./rede/config.ts"
import { makeRedeAcquirer, REDE } from "./rede/RedeAcquirer.ts"

/**
 * The card acquirers a deployment can name (ACQUIRER=…, and the members of ACQUIRERS when
 * ACQUIRER=failover), each built from its own variables only when named (docs/configuration.md).
 * Adding an acquirer is one entry here and one folder beside this file (docs/providers.md).
 */
const members: Readonly<Record<string, Effect.Effect<AcquirerService, ConfigError.ConfigError>>> = {
  sandbox: Effect.provide(Acquirer, SandboxAcquirerLive),
  [CIELO]: Effect.map(CieloConfigFromEnv, makeCieloAcquirer),
  [REDE]: Effect.map(RedeConfigFromEnv, makeRedeAcquirer)
}

const FailoverAcquirerLive = Layer.effect(
  Acquirer,
  Effect.gen(function* () {
    const options = yield* failoverConfig(Object.keys(members))
    const metrics = yield* Metrics
    const built = new Map<string, AcquirerService>()
    for (const name of new Set([...options.order, ...Object.values(options.byBrand).flat()])) {
      built.set(name, yield* members[name]!)
    }
    return makeFailoverAcquirer(built, options, metrics)
  })
)

/** For `chosen("ACQUIRER", …)` in src/Live.ts. */
export const AcquirerLayers = {
  sandbox: SandboxAcquirerLive,
  [CIELO]: Layer.effect(Acquirer, members[CIELO]!),
  [REDE]: Layer.effect(Acquirer, members[REDE]!),
  failover: FailoverAcquirerLive
}
