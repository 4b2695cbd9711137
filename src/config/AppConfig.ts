import { fileURLToPath } from "node:url"
import { Config, ConfigError, Context, Effect, Either, Layer, Option, Redacted } from "effect"
import { type AntifraudSettings, DEFAULT_SETTINGS, parseWeights } from "../domain/antifraud.ts"
import { type InstallmentRules, rateOf } from "../domain/installments.ts"
import { type Fee, parseFee, type Schedule } from "../domain/ledger.ts"
import { type AddressList, addressListConfig, type ForwardedHeader } from "./addressList.ts"
import { emptyAsUnset } from "./emptyAsUnset.ts"
import { loadDevelopmentSecrets } from "./secrets.ts"

/** Every environment variable of CONTRACT §2, read once at start-up. */
export interface AppConfigShape {
  readonly production: boolean
  readonly port: number
  readonly host: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  /** METRICS_PORT, METRICS_HOST: the separate listener of GET /metrics (docs/operations.md "Metrics"). */
  readonly metrics: { readonly port: number; readonly host: string }
  readonly jwtSecret: Redacted.Redacted
  readonly cardVaultKey: Redacted.Redacted
  readonly publicBaseUrl: string
  readonly rateLimitPerMinute: number
  /** A payment link's visits per rolling minute, all processes together (docs/payment-links.md). */
  readonly paymentLinkVisitsPerMinute: number
  /**
   * PAYMENT_LINK_VISITS_PER_ADDRESS: a link's visits per rolling minute from one client address; unset, none
   * (docs/payment-links.md "Visits per minute": behind a proxy not in TRUSTED_PROXIES, every buyer has its address).
   */
  readonly paymentLinkVisitsPerAddress: Option.Option<number>
  /**
   * LOGIN_FAILURES_MAX, LOGIN_FAILURES_WINDOW_SECONDS: failed logins of one email, every process together,
   * after which its logins answer 429 until the window ends (docs/decisions.md "Login attempts").
   */
  readonly loginThrottle: { readonly maxFailures: number; readonly windowSeconds: number }
  /** TRUSTED_PROXIES: the proxies whose forwarding header is believed (docs/configuration.md "Client addresses"). */
  readonly trustedProxies: AddressList
  /** FORWARDED_HEADER: the one header those proxies write, `x-forwarded-for` (default) or RFC 7239 `forwarded`. */
  readonly forwardedHeader: ForwardedHeader
  readonly pixExpiresInSeconds: number
  readonly boletoDueDays: number
  /** BOLETO_LATE_DAYS: how long after its due date a boleto with a fine or interest is still payable. */
  readonly boletoLateDays: number
  /**
   * BOLETO_REPORT_DAYS: business days after a boleto's last payable day that it stays PENDING, so that the
   * bank's report of a payment made on that day (a retorno of the next business day or the one after) still
   * finds it payable; then it expires (docs/boleto.md "When a boleto expires").
   */
  readonly boletoReportDays: number
  readonly boletoConfirmationDelaySeconds: number
  /**
   * RECONCILE_STUCK_AFTER_SECONDS: how long a card charge stays PROCESSING, not marked by the request that
   * sends it (every third of this while its acquirers are asked), before the reconciliation job takes it
   * for lost (docs/architecture.md, reconcile_charges).
   */
  readonly reconcileStuckAfterSeconds: number
  readonly sandboxEnabled: boolean
  readonly signupEnabled: boolean
  readonly webhookAllowPrivateUrls: boolean
  readonly webhookTimeoutMs: number
  readonly webhookRetrySchedule: ReadonlyArray<number>
  /** REQUEST_LOG_RETENTION_DAYS: how long the request log keeps a request (default 7; docs/webhooks.md). */
  readonly requestLogRetentionDays: number
  readonly workerConcurrency: number
  /** WORKER_POLL_INTERVAL_MS: how soon a job that became due (a retry, a deadline) is seen; new jobs wake at once. */
  readonly workerPollIntervalMs: number
  /** WORKER_LOCAL_QUEUE_SIZE: jobs fetched (and locked) per query; unset: 2 × concurrency; 1 turns batching off. */
  readonly workerLocalQueueSize: Option.Option<number>
  /**
   * WORKER_REFETCH_DELAY_MS: after a fetch that found no job, how long (on average; at most
   * WORKER_POLL_INTERVAL_MS) the local queue lets "new job" notices pass before fetching again; 0 turns it off.
   * Every PIX charge schedules its expiry an hour ahead, and graphile-worker notifies every worker of every
   * job whatever its run_at (docs/performance.md "The worker's wake-ups").
   */
  readonly workerRefetchDelayMs: number
  readonly logLevel: string
  /**
   * CONTRACT-v1 §4: INSTALLMENTS_MAX, INSTALLMENTS_WITHOUT_INTEREST, INSTALLMENT_MONTHLY_INTEREST_PERCENT,
   * INSTALLMENT_MIN_AMOUNT.
   */
  readonly installments: InstallmentRules
  /** CONTRACT-v1 §7 and docs/money.md: fees, settlement schedule, reserve, sandbox timings. */
  readonly money: MoneyConfig
  /**
   * CONTRACT-v1 §9 (docs/antifraud.md): ANTIFRAUD_WEIGHTS, ANTIFRAUD_REVIEW_AT, ANTIFRAUD_REJECT_AT,
   * ANTIFRAUD_CARD_VELOCITY_MAX, ANTIFRAUD_CARD_VELOCITY_WINDOW_SECONDS, ANTIFRAUD_DOCUMENT_VELOCITY_MAX,
   * ANTIFRAUD_DOCUMENT_VELOCITY_WINDOW_SECONDS, ANTIFRAUD_AMOUNT_FACTOR, ANTIFRAUD_AMOUNT_MIN_HISTORY.
   */
  readonly antifraud: AntifraudSettings
  /** HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_MAX_CONNECTIONS (docs/operations.md). */
  readonly http: {
    readonly headersTimeoutMs: number
    readonly requestTimeoutMs: number
    readonly maxConnections: number
  }
}

export interface MoneyConfig {
  /** FEE_CREDIT_CARD, FEE_PIX, FEE_BILLET. */
  readonly fees: Readonly<Record<"CARD" | "PIX" | "BOLETO", Fee>>
  /** SETTLEMENT_DAYS_*, RESERVE_PERCENT, RESERVE_DAYS. */
  readonly schedule: Schedule
  readonly withdrawalDelaySeconds: number
  readonly disputeDelaySeconds: number
}

export class AppConfig extends Context.Tag("AppConfig")<AppConfig, AppConfigShape>() {}

const positiveInt = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a positive integer`, validation: (n) => n > 0 })
  )

/** Ten years: a velocity window longer than any card's life, and far below what a Date can hold. */
const MAX_WINDOW_SECONDS = 10 * 366 * 86_400

/** A velocity window in seconds: a positive integer up to ten years (a Date past that range is a 500). */
const windowSeconds = (name: string, fallback: number) =>
  positiveInt(name, fallback).pipe(
    Config.validate({
      message: `${name} must be a positive integer of seconds, at most ${MAX_WINDOW_SECONDS} (ten years)`,
      validation: (n) => n <= MAX_WINDOW_SECONDS
    })
  )

/**
 * The longest delay Node's timers keep: "When delay is larger than 2147483647 or less than 1, the delay will be
 * set to 1" (Node's docs, setTimeout), so WORKER_POLL_INTERVAL_MS=3000000000 polled every millisecond. Every
 * duration that ends in a timer is refused above it (docs/configuration.md "Durations").
 */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** The same limit in whole seconds (2147483 s, about 24.8 days), for the durations given in seconds. */
const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000)

/** A duration in milliseconds from `min` to MAX_TIMER_MS. */
const milliseconds = (name: string, fallback: number, min = 1) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({
      message: `${name} must be a whole number of milliseconds from ${min} to ${MAX_TIMER_MS}`,
      validation: (n) => n >= min && n <= MAX_TIMER_MS
    })
  )

const retrySchedule = Config.string("WEBHOOK_RETRY_SCHEDULE").pipe(
  Config.withDefault("5,300,1800,7200,18000,36000,50400,72000,86400"),
  Config.mapOrFail((raw) => {
    const parts = raw.split(",").map((s) => s.trim())
    const seconds = parts.map(Number)
    return parts.length > 0 && seconds.every((n, i) => parts[i] !== "" && Number.isFinite(n) && n >= 0)
      ? Either.right(seconds)
      : Either.left(
          ConfigError.InvalidData([], "WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, e.g. 5,300,1800")
        )
  })
)

const installments = Config.all({
  max: positiveInt("INSTALLMENTS_MAX", 12).pipe(
    Config.validate({ message: "INSTALLMENTS_MAX must be from 1 to 24", validation: (n) => n <= 24 })
  ),
  withoutInterest: Config.integer("INSTALLMENTS_WITHOUT_INTEREST").pipe(
    Config.withDefault(1),
    Config.validate({ message: "INSTALLMENTS_WITHOUT_INTEREST must be ≥ 1", validation: (n) => n >= 1 })
  ),
  monthlyInterestPercent: Config.string("INSTALLMENT_MONTHLY_INTEREST_PERCENT").pipe(
    Config.withDefault("2.99"),
    Config.validate({
      message: "INSTALLMENT_MONTHLY_INTEREST_PERCENT must be a decimal percent such as 2.99",
      validation: (s) => rateOf(s) !== null
    })
  ),
  minAmount: Config.integer("INSTALLMENT_MIN_AMOUNT").pipe(
    Config.withDefault(500),
    Config.validate({ message: "INSTALLMENT_MIN_AMOUNT must be ≥ 0", validation: (n) => n >= 0 })
  )
})

const score = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be an integer from 0 to 100`, validation: (n) => n >= 0 && n <= 100 })
  )

const antifraud = Config.all({
  weights: Config.string("ANTIFRAUD_WEIGHTS").pipe(
    Config.withDefault(""),
    Config.mapOrFail((raw) =>
      Either.mapLeft(parseWeights(raw), (why) =>
        ConfigError.InvalidData([], `ANTIFRAUD_WEIGHTS: ${why}; expected e.g. card_velocity=40,private_ip=10`)
      )
    )
  ),
  reviewAt: score("ANTIFRAUD_REVIEW_AT", DEFAULT_SETTINGS.reviewAt),
  rejectAt: score("ANTIFRAUD_REJECT_AT", DEFAULT_SETTINGS.rejectAt),
  cardVelocity: Config.all({
    max: positiveInt("ANTIFRAUD_CARD_VELOCITY_MAX", DEFAULT_SETTINGS.cardVelocity.max),
    windowSeconds: windowSeconds("ANTIFRAUD_CARD_VELOCITY_WINDOW_SECONDS", DEFAULT_SETTINGS.cardVelocity.windowSeconds)
  }),
  documentVelocity: Config.all({
    max: positiveInt("ANTIFRAUD_DOCUMENT_VELOCITY_MAX", DEFAULT_SETTINGS.documentVelocity.max),
    windowSeconds: windowSeconds(
      "ANTIFRAUD_DOCUMENT_VELOCITY_WINDOW_SECONDS",
      DEFAULT_SETTINGS.documentVelocity.windowSeconds
    )
  }),
  amount: Config.all({
    factor: positiveInt("ANTIFRAUD_AMOUNT_FACTOR", DEFAULT_SETTINGS.amount.factor),
    minHistory: positiveInt("ANTIFRAUD_AMOUNT_MIN_HISTORY", DEFAULT_SETTINGS.amount.minHistory)
  })
}).pipe(
  Config.validate({
    message: "ANTIFRAUD_REVIEW_AT must not be above ANTIFRAUD_REJECT_AT",
    validation: (s) => s.reviewAt <= s.rejectAt
  })
)

/**
 * `.data` of the project, wherever the process was started from: the service and the CLI (src/cli.ts)
 * then open the same database and secrets even when one of them runs from another directory
 * (docs/operations.md). From src/config/ or dist/config/, the project is two levels up.
 */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL("../../.data", import.meta.url))

const logLevels = ["all", "trace", "debug", "info", "warning", "error", "fatal", "none"] as const

const fee = (name: string, fallback: string) =>
  Config.string(name).pipe(
    Config.withDefault(fallback),
    Config.mapOrFail((raw) => {
      const parsed = parseFee(raw)
      return parsed === null
        ? Either.left(
            ConfigError.InvalidData([name], `${name} must be a fee like 3.99%, 349 (centavos) or 2.5%+39, got "${raw}"`)
          )
        : Either.right(parsed)
    })
  )

const days = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({
      message: `${name} must be a whole number of days from 0 to 365`,
      validation: (n) => n >= 0 && n <= 365
    })
  )

/** A delay in seconds from 0 to MAX_TIMER_SECONDS: it ends in a timer or a date (docs/configuration.md "Durations"). */
const seconds = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({
      message: `${name} must be a whole number of seconds from 0 to ${MAX_TIMER_SECONDS}`,
      validation: (n) => n >= 0 && n <= MAX_TIMER_SECONDS
    })
  )

/**
 * PIX_EXPIRES_IN_SECONDS at most: the API Pix's calendario.expiracao is an int32 of seconds (BCB's OpenAPI of the
 * API Pix), the PSPs' own bound; beyond any date, a larger one made now + it an Invalid Date (src/app/Payments.ts,
 * chargePix).
 */
const PIX_EXPIRACAO_MAX = 2 ** 31 - 1

/**
 * PUBLIC_BASE_URL, the base of qrCodeUrl and pdfUrl: an http(s) URL. Config.url alone took
 * "pay.example.com:8443" for a URL of scheme "pay.example.com:" (WHATWG URL), and every link built on it broke.
 */
const publicBaseUrl = Config.url("PUBLIC_BASE_URL").pipe(
  Config.mapOrFail((url) =>
    (url.protocol === "http:" || url.protocol === "https:") && url.host !== ""
      ? Either.right(url)
      : Either.left(
          ConfigError.InvalidData(
            [],
            `PUBLIC_BASE_URL must be an http:// or https:// URL such as https://pay.example.com, got "${url.href}"`
          )
        )
  )
)

/**
 * HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_MAX_CONNECTIONS (docs/operations.md). node:http's
 * createServer throws a RangeError when headersTimeout is above requestTimeout (Node's docs,
 * server.headersTimeout), a stack trace at listen: the pair is refused here, naming both.
 */
const http = Config.all({
  headersTimeoutMs: milliseconds("HTTP_HEADERS_TIMEOUT_MS", 10_000),
  requestTimeoutMs: milliseconds("HTTP_REQUEST_TIMEOUT_MS", 30_000),
  maxConnections: positiveInt("HTTP_MAX_CONNECTIONS", 1_024)
}).pipe(
  Config.mapOrFail((timeouts) =>
    timeouts.headersTimeoutMs <= timeouts.requestTimeoutMs
      ? Either.right(timeouts)
      : Either.left(
          ConfigError.InvalidData(
            [],
            `HTTP_HEADERS_TIMEOUT_MS (${timeouts.headersTimeoutMs}) must not be above ` +
              `HTTP_REQUEST_TIMEOUT_MS (${timeouts.requestTimeoutMs}): lower the one or raise the other`
          )
        )
  )
)

const money = Config.all({
  fees: Config.all({
    CARD: fee("FEE_CREDIT_CARD", "3.99%"),
    PIX: fee("FEE_PIX", "0.99%"),
    BOLETO: fee("FEE_BILLET", "349")
  }),
  schedule: Config.all({
    pixDays: days("SETTLEMENT_DAYS_PIX", 0),
    billetDays: days("SETTLEMENT_DAYS_BILLET", 1),
    cardDays: days("SETTLEMENT_DAYS_CREDIT_CARD", 30),
    reserveDays: days("RESERVE_DAYS", 30),
    reserve: Config.string("RESERVE_PERCENT").pipe(
      Config.withDefault("0"),
      Config.mapOrFail((raw) => {
        const rate = rateOf(raw)
        return rate === null || rate.a > rate.b
          ? Either.left(
              ConfigError.InvalidData(
                ["RESERVE_PERCENT"],
                `RESERVE_PERCENT must be a percentage from 0 to 100, got "${raw}"`
              )
            )
          : Either.right(rate)
      })
    )
  }),
  withdrawalDelaySeconds: seconds("WITHDRAWAL_DELAY_SECONDS", 5),
  disputeDelaySeconds: seconds("SANDBOX_DISPUTE_DELAY_SECONDS", 10)
})

const fields = Config.all({
  production: Config.string("NODE_ENV").pipe(
    Config.withDefault("development"),
    Config.map((s) => s === "production")
  ),
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  metrics: Config.all({
    port: Config.port("METRICS_PORT").pipe(Config.withDefault(9464)),
    host: Config.string("METRICS_HOST").pipe(Config.withDefault("127.0.0.1"))
  }),
  databaseUrl: Config.option(
    Config.redacted("DATABASE_URL").pipe(
      Config.validate({
        // pg reads anything as a URL ("not a url" becomes host "base"): say what is wrong before connecting.
        message: "DATABASE_URL must be a URL like postgres://user:password@host:5432/database",
        validation: (url) => /^(postgres|postgresql|socket):/.test(Redacted.value(url))
      })
    )
  ),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(DEFAULT_DATA_DIR)),
  jwtSecret: Config.option(Config.redacted("JWT_SECRET")),
  cardVaultKey: Config.option(Config.redacted("CARD_VAULT_KEY")),
  publicBaseUrl: Config.option(publicBaseUrl),
  rateLimitPerMinute: positiveInt("RATE_LIMIT_PER_MINUTE", 100),
  paymentLinkVisitsPerMinute: positiveInt("PAYMENT_LINK_VISITS_PER_MINUTE", 120),
  paymentLinkVisitsPerAddress: Config.option(
    Config.integer("PAYMENT_LINK_VISITS_PER_ADDRESS").pipe(
      Config.validate({
        message: "PAYMENT_LINK_VISITS_PER_ADDRESS must be a positive integer",
        validation: (n) => n > 0
      })
    )
  ),
  loginThrottle: Config.all({
    maxFailures: positiveInt("LOGIN_FAILURES_MAX", 10),
    windowSeconds: positiveInt("LOGIN_FAILURES_WINDOW_SECONDS", 900).pipe(
      Config.validate({
        message: "LOGIN_FAILURES_WINDOW_SECONDS must be at most 86400 (a day)",
        validation: (n) => n <= 86_400
      })
    )
  }),
  trustedProxies: addressListConfig("TRUSTED_PROXIES"),
  forwardedHeader: Config.string("FORWARDED_HEADER").pipe(
    Config.withDefault("x-forwarded-for"),
    Config.map((name) => name.trim().toLowerCase()),
    Config.validate({
      message: "FORWARDED_HEADER must be x-forwarded-for or forwarded",
      validation: (name): name is ForwardedHeader => name === "x-forwarded-for" || name === "forwarded"
    })
  ),
  pixExpiresInSeconds: positiveInt("PIX_EXPIRES_IN_SECONDS", 3600).pipe(
    Config.validate({
      message: `PIX_EXPIRES_IN_SECONDS must be at most ${PIX_EXPIRACAO_MAX} (the API Pix's calendario.expiracao)`,
      validation: (n) => n <= PIX_EXPIRACAO_MAX
    })
  ),
  boletoDueDays: positiveInt("BOLETO_DUE_DAYS", 3),
  boletoLateDays: positiveInt("BOLETO_LATE_DAYS", 30),
  boletoReportDays: Config.integer("BOLETO_REPORT_DAYS").pipe(
    Config.withDefault(2),
    Config.validate({ message: "BOLETO_REPORT_DAYS must be 0 to 10", validation: (n) => n >= 0 && n <= 10 })
  ),
  reconcileStuckAfterSeconds: Config.integer("RECONCILE_STUCK_AFTER_SECONDS").pipe(
    Config.withDefault(60),
    Config.validate({
      message: "RECONCILE_STUCK_AFTER_SECONDS must be 2 to 3600",
      validation: (n) => n >= 2 && n <= 3600
    })
  ),
  boletoConfirmationDelaySeconds: seconds("BOLETO_CONFIRMATION_DELAY_SECONDS", 5),
  sandboxEnabled: Config.option(Config.boolean("SANDBOX_ENABLED")),
  signupEnabled: Config.boolean("SIGNUP_ENABLED").pipe(Config.withDefault(true)),
  webhookAllowPrivateUrls: Config.boolean("WEBHOOK_ALLOW_PRIVATE_URLS").pipe(Config.withDefault(false)),
  webhookTimeoutMs: milliseconds("WEBHOOK_TIMEOUT_MS", 5000),
  webhookRetrySchedule: retrySchedule,
  requestLogRetentionDays: days("REQUEST_LOG_RETENTION_DAYS", 7),
  workerConcurrency: positiveInt("WORKER_CONCURRENCY", 10),
  workerPollIntervalMs: milliseconds("WORKER_POLL_INTERVAL_MS", 500),
  workerLocalQueueSize: Config.option(
    Config.integer("WORKER_LOCAL_QUEUE_SIZE").pipe(
      Config.validate({ message: "WORKER_LOCAL_QUEUE_SIZE must be a positive integer", validation: (n) => n > 0 })
    )
  ),
  workerRefetchDelayMs: milliseconds("WORKER_REFETCH_DELAY_MS", 50, 0),
  logLevel: Config.literal(...logLevels)("LOG_LEVEL").pipe(Config.withDefault("info" as const)),
  installments,
  money,
  antifraud,
  http
})

/**
 * Reads the configuration, a variable set empty being unset (docs/configuration.md "Empty values"). Production
 * refuses to start without the two secrets; development generates them once into DATA_DIR so restarts keep the
 * same tokens and vault.
 */
export const loadAppConfig = Effect.configProviderWith((provider) =>
  read.pipe(Effect.withConfigProvider(emptyAsUnset(provider)))
)

const read = Effect.gen(function* () {
  const raw = yield* fields
  const secrets = raw.production
    ? yield* Effect.all({
        jwtSecret: requiredInProduction(raw.jwtSecret, "JWT_SECRET").pipe(Effect.flatMap(longEnoughJwtSecret)),
        cardVaultKey: requiredInProduction(raw.cardVaultKey, "CARD_VAULT_KEY")
      })
    : yield* loadDevelopmentSecrets(raw.dataDir, raw.jwtSecret, raw.cardVaultKey)
  const vaultKey = Buffer.from(Redacted.value(secrets.cardVaultKey), "base64")
  if (vaultKey.length !== 32) {
    return yield* Effect.fail(
      ConfigError.InvalidData(["CARD_VAULT_KEY"], "CARD_VAULT_KEY must be 32 bytes, base64-encoded")
    )
  }
  return {
    ...raw,
    ...secrets,
    publicBaseUrl: Option.match(raw.publicBaseUrl, {
      onNone: () => `http://localhost:${raw.port}`,
      onSome: (url) => url.toString().replace(/\/$/, "")
    }),
    // CONTRACT §1's default. It governs test mode's buyer simulation (/api/sandbox/*), not test keys,
    // which charge the sandbox rails in every environment (docs/decisions.md "Test and live modes").
    sandboxEnabled: Option.getOrElse(raw.sandboxEnabled, () => !raw.production)
  } satisfies AppConfigShape
})

const requiredInProduction = (value: Option.Option<Redacted.Redacted>, name: string) =>
  Option.match(value, {
    onNone: () =>
      Effect.fail(ConfigError.MissingData([name], `${name} is required (and not empty) when NODE_ENV=production`)),
    onSome: Effect.succeed
  })

/**
 * RFC 7518 §3.2: "A key of the same size as the hash output (for instance, 256 bits for "HS256") or larger MUST
 * be used with this algorithm." The generated development secret has 32 random bytes.
 */
const JWT_SECRET_MIN_BYTES = 32

const longEnoughJwtSecret = (secret: Redacted.Redacted) =>
  Buffer.byteLength(Redacted.value(secret), "utf8") >= JWT_SECRET_MIN_BYTES
    ? Effect.succeed(secret)
    : Effect.fail(
        ConfigError.InvalidData(
          ["JWT_SECRET"],
          `JWT_SECRET must be at least ${JWT_SECRET_MIN_BYTES} bytes when NODE_ENV=production (RFC 7518 §3.2); ` +
            "e.g. openssl rand -base64 32"
        )
      )

export const AppConfigLive = Layer.effect(AppConfig, loadAppConfig)

/** For tests and tools that build the configuration in code. */
export const AppConfigFrom = (config: AppConfigShape) => Layer.succeed(AppConfig, config)
