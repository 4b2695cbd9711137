import type { SqlClient } from "@effect/sql"
import { Config, type ConfigError, Effect, Layer, Option } from "effect"
import type { AppConfig } from "../../config/AppConfig.ts"
import { ProviderUnavailable } from "../../domain/errors.ts"
import { Acquirer, AcquirerUnavailable } from "../../ports/Acquirer.ts"
import { BankFiles } from "../../ports/BankFiles.ts"
import { BoletoProvider } from "../../ports/BoletoProvider.ts"
import { LiveRails } from "../../ports/Modes.ts"
import type { Metrics } from "../../ports/Metrics.ts"
import { Payouts } from "../../ports/Payouts.ts"
import { PixProvider } from "../../ports/PixProvider.ts"
import { BcbPixProviderLive } from "./bcb-pix/BcbPixProvider.ts"
import { BbCnab240BoletoLive } from "./bb-cnab240/BbCnab240Boleto.ts"
import { BbCnab240FilesLive } from "./bb-cnab240/BbCnab240Files.ts"
import { LoopbackPixLive } from "./loopback/index.ts"
import { LIVE_ACQUIRER_NAMES, LiveAcquirerLive } from "./registry.ts"

/**
 * The live rails: the ONE registry of real providers, a record per port from a provider's name to the
 * layer that serves the port and reads its own configuration (docs/providers.md). The operator names
 * which are used: `LIVE_ACQUIRERS`, `LIVE_PIX_PROVIDER`, `LIVE_BOLETO_PROVIDER`, `LIVE_PAYOUTS_PROVIDER`.
 * A new provider is one folder under `src/adapters/providers/<name>/` and one line here.
 *
 * `loopback` is not a provider: a test-only adapter refused outside tests (loopback/client.ts).
 */
// Config errors, the SQL client and the application's configuration are what a provider's layer may need;
// add to these when one needs more.
type ProviderLayer<Port> = Layer.Layer<Port, ConfigError.ConfigError, Metrics | SqlClient.SqlClient | AppConfig>

export const LIVE_PIX_PROVIDERS: Readonly<Record<string, ProviderLayer<PixProvider>>> = {
  // The Banco Central's API Pix at the PSP that PIX_PSP names (docs/providers.md "PIX").
  "bcb-pix": BcbPixProviderLive,
  loopback: LoopbackPixLive
}
/** A bank by files also serves BankFiles: its remessa and retorno exchange (docs/providers.md). */
export const LIVE_BOLETO_PROVIDERS: Readonly<Record<string, ProviderLayer<BoletoProvider | BankFiles>>> = {
  // Banco do Brasil by CNAB 240 files (docs/providers.md "Boleto: banks by CNAB 240").
  "bb-cnab240": Layer.mergeAll(BbCnab240BoletoLive, BbCnab240FilesLive)
}
export const LIVE_PAYOUTS_PROVIDERS: Readonly<Record<string, ProviderLayer<Payouts>>> = {}

/** A provider name a variable gives, checked against the registry; None when the variable is unset or empty. */
const named = (variable: string, registry: Readonly<Record<string, unknown>>) =>
  Config.option(Config.string(variable)).pipe(
    Config.map(Option.map((name) => name.trim())),
    Config.map(Option.filter((name) => name !== "")),
    Config.validate({
      // The variable named: a validation after Config.option carries no path for the start-up line to print.
      message: `${variable} must be one of: ${Object.keys(registry).join(", ") || "(no provider registered yet)"}`,
      validation: (name) => Option.isNone(name) || Object.hasOwn(registry, name.value)
    })
  )

// The acquirers, in failover order (registry.ts); None when LIVE_ACQUIRERS is unset or empty.
const acquirersNamed = Config.option(Config.string("LIVE_ACQUIRERS")).pipe(
  Config.map(Option.filter((raw) => raw.trim() !== "")),
  Config.validate({
    message: `LIVE_ACQUIRERS must list acquirers among: ${LIVE_ACQUIRER_NAMES.join(", ")}`,
    validation: (raw) =>
      Option.isNone(raw) ||
      raw.value
        .split(",")
        .map((n) => n.trim())
        .every((n) => n === "" || LIVE_ACQUIRER_NAMES.includes(n))
  })
)

// What live mode does on a rail the operator did not configure: the call is refused, nothing is sent.
const acquirerAbsent = () =>
  Effect.fail(new AcquirerUnavailable({ message: "no live acquirer configured (LIVE_ACQUIRERS)" }))
const absentAcquirer = Acquirer.of({
  charge: acquirerAbsent,
  status: acquirerAbsent,
  verify: acquirerAbsent,
  refund: acquirerAbsent
})
const absent = (provider: string, variable: string) =>
  new ProviderUnavailable({
    provider,
    message: `no live ${provider} provider configured (${variable})`,
    retryAfterSeconds: 3600
  })
const pixAbsent = () => Effect.fail(absent("pix", "LIVE_PIX_PROVIDER"))
const absentPix = PixProvider.of({
  createCharge: pixAbsent,
  createDueCharge: pixAbsent,
  chargeStatus: pixAbsent,
  cancelCharge: pixAbsent,
  withdrawDueCharge: pixAbsent,
  refund: pixAbsent,
  refundStatus: pixAbsent,
  registerNotifications: pixAbsent,
  // No live PSP: nothing was received (the reconciliation poll runs every minute and finds nothing).
  receivedPayments: () => Effect.succeed([])
})
const absentBoleto = BoletoProvider.of({
  register: () => Effect.fail(absent("boleto", "LIVE_BOLETO_PROVIDER")),
  settlements: () => Effect.succeed([])
})
// No bank by files: nothing to cut, nothing to read; the CLI and the upload say so.
const noBankFiles = BankFiles.of({
  configured: false,
  cycle: { remessaEveryMs: 3_600_000, pollEveryMs: 60_000 },
  remessaDue: Effect.succeed(false),
  cutRemessa: Effect.succeed(Option.none()),
  read: () => Effect.die("no bank by files is configured (LIVE_BOLETO_PROVIDER)"),
  watched: Effect.succeed([]),
  moveAside: () => Effect.void,
  markTitle: () => Effect.void,
  titleState: () => Effect.succeed(Option.none()),
  lockReceived: Effect.void,
  received: () => Effect.succeed(Option.none()),
  expectedNext: Effect.succeed(1),
  hold: () => Effect.void,
  heldContent: () => Effect.succeed(Option.none()),
  recordProcessed: () => Effect.void
})
// CONTRACT-v1 §7 withdrawals in live mode answer 409 payouts_unavailable until a payouts adapter exists.
// Exported only so that its port's conformance kit runs for it (test/providers/payouts.test.ts).
export const absentPayouts = Payouts.of({
  available: Effect.succeed(false),
  pay: () => Effect.die("live payouts are not configured: a withdrawal should have been refused (409)")
})

/**
 * The live side of every payment port, from the configuration, and what is missing for live mode:
 * live keys can be created once at least one payment rail (cards or PIX) is live.
 */
export const LiveRailsLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const acquirer = yield* acquirersNamed
    const pix = yield* named("LIVE_PIX_PROVIDER", LIVE_PIX_PROVIDERS)
    const boleto = yield* named("LIVE_BOLETO_PROVIDER", LIVE_BOLETO_PROVIDERS)
    const payouts = yield* named("LIVE_PAYOUTS_PROVIDER", LIVE_PAYOUTS_PROVIDERS)
    const missing =
      Option.isNone(acquirer) && Option.isNone(pix)
        ? ["no live acquirer configured (LIVE_ACQUIRERS)", "no live PIX provider configured (LIVE_PIX_PROVIDER)"]
        : []
    return Layer.mergeAll(
      Option.match(acquirer, {
        onNone: () => Layer.succeed(Acquirer, absentAcquirer),
        onSome: () => LiveAcquirerLive
      }),
      Option.match(pix, { onNone: () => Layer.succeed(PixProvider, absentPix), onSome: (n) => LIVE_PIX_PROVIDERS[n]! }),
      Option.match(boleto, {
        onNone: () => Layer.merge(Layer.succeed(BoletoProvider, absentBoleto), Layer.succeed(BankFiles, noBankFiles)),
        onSome: (n) => LIVE_BOLETO_PROVIDERS[n]!
      }),
      Option.match(payouts, {
        onNone: () => Layer.succeed(Payouts, absentPayouts),
        onSome: (n) => LIVE_PAYOUTS_PROVIDERS[n]!
      }),
      Layer.succeed(LiveRails, LiveRails.of({ missing }))
    )
  })
)
