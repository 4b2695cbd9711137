import { Config, Effect, Layer } from "effect"
import { inMode } from "./ports/Modes.ts"
import { Argon2PasswordHasher } from "./adapters/crypto/Argon2PasswordHasher.ts"
import { JwtSessionTokens } from "./adapters/crypto/JwtSessionTokens.ts"
import { Sha256ApiKeyHasher } from "./adapters/crypto/Sha256ApiKeyHasher.ts"
import { DocumentRendererLive } from "./adapters/render/DocumentRendererLive.ts"
import { PrometheusMetrics } from "./adapters/metrics/PrometheusMetrics.ts"
import { AccountRepoLive } from "./adapters/postgres/AccountRepoLive.ts"
import { ApiKeyRepoLive } from "./adapters/postgres/ApiKeyRepoLive.ts"
import { WebhookSenderLive } from "./adapters/http/WebhookSenderLive.ts"
import { CardVaultLive } from "./adapters/postgres/CardVaultLive.ts"
import { CustomerRepoLive } from "./adapters/postgres/CustomerRepoLive.ts"
import { IdempotencyStoreLive } from "./adapters/postgres/IdempotencyStoreLive.ts"
import { JobSchedulerLive } from "./adapters/postgres/JobSchedulerLive.ts"
import { OrderRepoLive } from "./adapters/postgres/OrderRepoLive.ts"
import { OutboxLive } from "./adapters/postgres/OutboxLive.ts"
import { PublicDocumentsLive } from "./adapters/postgres/PublicDocumentsLive.ts"
import { KeyAdmissionLive } from "./adapters/postgres/KeyAdmissionLive.ts"
import { RefundRepoLive } from "./adapters/postgres/RefundRepoLive.ts"
import { SubaccountRepoLive } from "./adapters/postgres/SubaccountRepoLive.ts"
import { PaymentLinkRepoLive } from "./adapters/postgres/PaymentLinkRepoLive.ts"
import { TransactionalLive } from "./adapters/postgres/TransactionalLive.ts"
import { TransactionRepoLive } from "./adapters/postgres/TransactionRepoLive.ts"
import { WebhookRepoLive } from "./adapters/postgres/WebhookRepoLive.ts"
import { EventLogLive } from "./adapters/postgres/EventLogLive.ts"
import { RequestLogLive } from "./adapters/postgres/RequestLogLive.ts"
import { SandboxAcquirerLive } from "./adapters/providers/sandbox/SandboxAcquirer.ts"
import { SandboxAntifraudLive } from "./adapters/providers/sandbox/SandboxAntifraud.ts"
import { AntifraudSignalsLive } from "./adapters/postgres/AntifraudSignalsLive.ts"
import { RateLimitWindowsLive } from "./adapters/postgres/RateLimitWindowsLive.ts"
import { LoginThrottleLive } from "./adapters/postgres/LoginThrottleLive.ts"
import { RulesAntifraudLive } from "./adapters/rules/RulesAntifraud.ts"
import { SandboxBoletoLive } from "./adapters/providers/sandbox/SandboxBoleto.ts"
import { SandboxPixProviderLive } from "./adapters/providers/sandbox/SandboxPixProvider.ts"
import { noticeUrlForLog, PixWebhookReceiverLive } from "./adapters/providers/bcb-pix/receiver.ts"
import { ReceivedPixRepoLive } from "./adapters/postgres/ReceivedPixRepoLive.ts"
import { PixReceiptsLive } from "./app/PixReceipts.ts"
import { Bolepix } from "./app/Bolepix.ts"
import { SecondPaymentRepoLive } from "./adapters/postgres/SecondPaymentRepoLive.ts"
import { BoletoPaymentToReturnRepoLive } from "./adapters/postgres/BoletoPaymentToReturnRepoLive.ts"
import { JobStats } from "./jobs/JobStats.ts"
import { OperatorQueue } from "./app/OperatorQueue.ts"
import { OperatorQueueReadsLive } from "./adapters/postgres/OperatorQueueReadsLive.ts"
import { UndecidedChargeReadsLive } from "./adapters/postgres/UndecidedChargesLive.ts"
import { LedgerChecksLive } from "./adapters/postgres/LedgerChecksLive.ts"
import { byMode } from "./adapters/providers/modes.ts"
import { LiveRailsLive } from "./adapters/providers/live.ts"
import { TenancyLive } from "./adapters/postgres/TenancyLive.ts"
import { Acquirer } from "./ports/Acquirer.ts"
import { PixProvider } from "./ports/PixProvider.ts"
import { BoletoProvider } from "./ports/BoletoProvider.ts"
import { Payouts } from "./ports/Payouts.ts"
import { Ids } from "./ports/Ids.ts"
import { AppConfig } from "./config/AppConfig.ts"
import { Accounts } from "./app/Accounts.ts"
import { Boletos } from "./app/Boletos.ts"
import { BoletoFiles } from "./app/BoletoFiles.ts"
import { Deliveries } from "./app/Deliveries.ts"
import { Lifecycle } from "./app/Lifecycle.ts"
import { Reconciliation } from "./app/Reconciliation.ts"
import { Checkout } from "./app/Checkout.ts"
import { Draining } from "./http/shared/Draining.ts"
import { TimedAcquirer } from "./adapters/metrics/TimedAcquirer.ts"
import { EventPayloadsLive } from "./http/shared/EventPayloadsLive.ts"
import { LedgerLive } from "./adapters/postgres/LedgerLive.ts"
import { ReceivablesLive } from "./adapters/postgres/ReceivablesLive.ts"
import { BooksLive } from "./app/Books.ts"
import { WithdrawalRepoLive } from "./adapters/postgres/WithdrawalRepoLive.ts"
import { Dashboard } from "./app/Dashboard.ts"
import { DashboardReadsLive } from "./adapters/postgres/DashboardReadsLive.ts"
import { SandboxPayoutsLive } from "./adapters/providers/sandbox/SandboxPayouts.ts"
import { Audit } from "./app/Audit.ts"
import { Disputes } from "./app/Disputes.ts"
import { Withdrawals } from "./app/Withdrawals.ts"
import { Balances } from "./app/Balances.ts"
import { Housekeeping } from "./app/Housekeeping.ts"
import { Cards } from "./app/Cards.ts"
import { Customers } from "./app/Customers.ts"
import { KeyUsage } from "./app/KeyUsage.ts"
import { Orders } from "./app/Orders.ts"
import { Payments } from "./app/Payments.ts"
import { Refunds } from "./app/Refunds.ts"
import { UndecidedCharges } from "./app/UndecidedCharges.ts"
import { Sandbox } from "./app/Sandbox.ts"
import { Settlement } from "./app/Settlement.ts"
import { Subaccounts } from "./app/Subaccounts.ts"
import { PaymentLinks } from "./app/PaymentLinks.ts"
import { Transactions } from "./app/Transactions.ts"
import { Webhooks } from "./app/Webhooks.ts"
import { Events } from "./app/Events.ts"
import { RequestLogs } from "./app/RequestLogs.ts"

/** The adapter a variable names (default `sandbox`); an unknown name stops start-up naming the variable. */
const chosen = <A, E, R>(
  variable: string,
  options: Readonly<Record<string, Layer.Layer<A, E, R>>>,
  fallback = "sandbox"
) =>
  Layer.unwrapEffect(
    Effect.map(
      Config.string(variable).pipe(
        Config.withDefault(fallback),
        Config.validate({
          message: `must be one of ${Object.keys(options).join(", ")}`,
          validation: (name) => Object.hasOwn(options, name)
        })
      ),
      (name) => options[name]!
    )
  )

/**
 * The payment rails, per mode (docs/decisions.md "Test and live modes"): test mode is the sandbox
 * adapters, whatever the configuration; live mode is the providers `src/adapters/providers/live.ts`
 * registers and the operator names (`LIVE_*`). Each port's service routes every call by the mode of the
 * tenant it runs for; the app services only ever see the port tags.
 */
const TestRails = Layer.mergeAll(SandboxAcquirerLive, SandboxPixProviderLive, SandboxBoletoLive, SandboxPayoutsLive)

export const RailsLive = Layer.mergeAll(
  TimedAcquirer.pipe(
    Layer.provideMerge(byMode([Acquirer, PixProvider, BoletoProvider, Payouts], TestRails, LiveRailsLive))
  ),
  // CONTRACT-v1 §9: the rules engine by default; the sandbox's fixed answers stay selectable. The
  // antifraud is the gateway's own judgement, the same in both modes.
  chosen(
    "ANTIFRAUD",
    { rules: RulesAntifraudLive.pipe(Layer.provide(AntifraudSignalsLive)), sandbox: SandboxAntifraudLive },
    "rules"
  )
)

const WebhookSenderFromConfig = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    WebhookSenderLive({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivateUrls })
  )
)

/** The adapters behind the ports; needs AppConfig and SqlClient. */
export const AdaptersLive = Layer.mergeAll(
  AccountRepoLive,
  TenancyLive,
  ApiKeyRepoLive,
  CustomerRepoLive,
  OrderRepoLive,
  TransactionRepoLive,
  RefundRepoLive,
  SubaccountRepoLive,
  PaymentLinkRepoLive,
  PublicDocumentsLive,
  IdempotencyStoreLive,
  KeyAdmissionLive,
  TransactionalLive,
  JobSchedulerLive,
  CardVaultLive,
  OutboxLive,
  WebhookRepoLive,
  EventLogLive,
  RequestLogLive,
  AntifraudSignalsLive,
  RateLimitWindowsLive,
  LoginThrottleLive,
  WebhookSenderFromConfig,
  RailsLive,
  Argon2PasswordHasher,
  Sha256ApiKeyHasher,
  JwtSessionTokens,
  DocumentRendererLive,
  EventPayloadsLive,
  LedgerLive,
  ReceivablesLive,
  WithdrawalRepoLive,
  DashboardReadsLive,
  ReceivedPixRepoLive,
  SecondPaymentRepoLive,
  BoletoPaymentToReturnRepoLive,
  OperatorQueueReadsLive,
  UndecidedChargeReadsLive,
  LedgerChecksLive
).pipe(Layer.provideMerge(PrometheusMetrics), Layer.provideMerge(Ids.Live))

/** The application services over the adapters. */
export const AppLive = Layer.mergeAll(
  Accounts.Default,
  Customers.Default,
  Orders.Default,
  Transactions.Default,
  Subaccounts.Default,
  // Its visits present the transactions they create (Transactions is memoised: one instance).
  PaymentLinks.Default.pipe(Layer.provide(Transactions.Default)),
  Cards.Default,
  Sandbox.Default,
  Webhooks.Default,
  Events.Default,
  RequestLogs.Default,
  Deliveries.Default,
  Boletos.Default,
  BoletoFiles.Default,
  Housekeeping.Default,
  KeyUsage.Default,
  Reconciliation.Default,
  Checkout.Default,
  Withdrawals.Default,
  Balances.Default,
  Audit.Default,
  Draining.Default,
  JobStats.Default,
  Dashboard.Default,
  // An operator's conclusion of a card charge whose outcome reconcile_charges could not learn (the CLI).
  UndecidedCharges.Default
).pipe(
  Layer.provideMerge(Disputes.Default),
  // Beneath JobStats, which samples it on every scrape.
  Layer.provideMerge(OperatorQueue.Default),
  // Sandbox decides reviews through Payments (CONTRACT-v1 §9), so Payments is provided beneath the services.
  Layer.provideMerge(Payments.Default),
  Layer.provideMerge(Settlement.Default),
  // The PSP's payment notices settle through the lifecycle; reconciliation and expiry hand it payments.
  Layer.provideMerge(PixReceiptsLive),
  // Beneath the inbox and the boleto confirmation: a bolepix's second payment, recorded and returned.
  Layer.provideMerge(Bolepix.Default),
  // Beneath the inbox: the notices' refund statuses conclude refunds by Refunds' own code.
  Layer.provideMerge(Refunds.Default),
  Layer.provideMerge(Lifecycle.Default),
  Layer.provideMerge(BooksLive),
  Layer.provideMerge(AdaptersLive)
)

/**
 * With the bcb-pix adapter in live mode (LIVE_PIX_PROVIDER=bcb-pix): the PSP's payment notices on their own
 * TLS listener when PIX_WEBHOOK_PORT is set, and the notice URL registered at the PSP at start when
 * PIX_WEBHOOK_URL is set (a failure is logged, not fatal: `npm run cli -- pix register-webhook` retries it).
 * Nothing otherwise (docs/providers.md). Needs AppLive.
 */
export const PixReceiverLive = Layer.unwrapEffect(
  Effect.map(
    Config.all({
      provider: Config.string("LIVE_PIX_PROVIDER").pipe(Config.withDefault("")),
      port: Config.option(Config.string("PIX_WEBHOOK_PORT")),
      webhookUrl: Config.option(Config.string("PIX_WEBHOOK_URL"))
    }),
    ({ port, provider, webhookUrl }) =>
      provider !== "bcb-pix"
        ? Layer.empty
        : Layer.mergeAll(
            port._tag === "Some" ? PixWebhookReceiverLive : Layer.empty,
            webhookUrl._tag === "Some"
              ? Layer.effectDiscard(
                  // The PSP is live mode's (docs/providers.md "Test and live modes").
                  Effect.flatMap(PixProvider, (pix) => pix.registerNotifications(webhookUrl.value)).pipe(
                    inMode("live"),
                    Effect.zipRight(
                      Effect.logInfo(`PIX notice URL registered at the PSP: ${noticeUrlForLog(webhookUrl.value)}`)
                    ),
                    Effect.catchAll((e) => Effect.logWarning(`PIX notice URL not registered: ${e.message}`))
                  )
                )
              : Layer.empty
          )
  )
).pipe(Layer.orDie)
