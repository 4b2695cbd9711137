import { randomBytes } from "node:crypto"
import { mkdtemp } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Either, Option, Redacted } from "effect"
import { parseAddressList } from "../../src/config/addressList.ts"
import type { AppConfigShape, MoneyConfig } from "../../src/config/AppConfig.ts"
import { DEFAULT_SETTINGS } from "../../src/domain/antifraud.ts"
import { parseFee } from "../../src/domain/ledger.ts"

/** TRUSTED_PROXIES unset: no proxy is believed. */
export const noAddresses = Either.getOrThrow(parseAddressList(""))

/** CONTRACT-v1 §7's defaults. */
export const defaultMoney: MoneyConfig = {
  fees: { CARD: parseFee("3.99%")!, PIX: parseFee("0.99%")!, BOLETO: parseFee("349")! },
  schedule: { pixDays: 0, billetDays: 1, cardDays: 30, reserveDays: 30, reserve: { a: 0n, b: 100n } },
  withdrawalDelaySeconds: 5,
  disputeDelaySeconds: 10
}

/**
 * A loopback port nothing listens on, for a server the caller starts next (often in a child process).
 *
 * Not `listen(0)`: the kernel hands the port it chose to the next `listen(0)` as soon as it is closed,
 * and a fake server or an embedded PostgreSQL in the other test fork binds that way, so a child given the
 * port could find it taken (CI's stop 29 failed once so: "port 42221 is already in use"). Ports come
 * instead from 20000–32767, below Linux's ephemeral range (32768–60999), one slice per vitest fork
 * (VITEST_POOL_ID, offset by the run's process id so that two runs on one machine tend to differ; the
 * process id outside vitest), walked in turn from a random place and each checked free by binding it.
 */
export const freePort = async (): Promise<number> => {
  for (let tries = 0; tries < SLICE; tries++) {
    const port = FIRST_PORT + slice * SLICE + (next++ % SLICE)
    if (await bindable(port)) return port
  }
  return anyPort()
}

const FIRST_PORT = 20_000
const SLICES = 6
const SLICE = Math.floor((32_768 - FIRST_PORT) / SLICES)
const pool = process.env.VITEST_POOL_ID
const slice = (pool === undefined ? process.pid : (Number(pool) || 0) + process.ppid) % SLICES
let next = Math.floor(Math.random() * SLICE)

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

const anyPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))
      )
    })
  })

/** Test and benchmark configuration, free of vitest so that plain scripts can use it. */
export const testConfig = async (
  databaseUrl: string,
  overrides: Partial<AppConfigShape> = {}
): Promise<AppConfigShape> => {
  const port = overrides.port ?? (await freePort())
  return {
    production: false,
    port,
    host: "127.0.0.1",
    metrics: { port: await freePort(), host: "127.0.0.1" },
    databaseUrl: Option.some(Redacted.make(databaseUrl)),
    dataDir: await mkdtemp(join(tmpdir(), "gateway-data-")),
    jwtSecret: Redacted.make(randomBytes(32).toString("base64url")),
    cardVaultKey: Redacted.make(randomBytes(32).toString("base64")),
    publicBaseUrl: `http://127.0.0.1:${port}`,
    rateLimitPerMinute: 100,
    paymentLinkVisitsPerMinute: 120,
    paymentLinkVisitsPerAddress: Option.none(),
    loginThrottle: { maxFailures: 10, windowSeconds: 900 },
    trustedProxies: noAddresses,
    forwardedHeader: "x-forwarded-for",
    pixExpiresInSeconds: 3600,
    boletoDueDays: 3,
    boletoLateDays: 30,
    boletoReportDays: 2,
    boletoConfirmationDelaySeconds: 1,
    reconcileStuckAfterSeconds: 60,
    sandboxEnabled: true,
    signupEnabled: true,
    webhookAllowPrivateUrls: true,
    webhookTimeoutMs: 2000,
    webhookRetrySchedule: [1, 2, 3],
    requestLogRetentionDays: 7,
    workerConcurrency: 4,
    workerPollIntervalMs: 500,
    workerLocalQueueSize: Option.none(),
    workerRefetchDelayMs: 50,
    installments: { max: 12, withoutInterest: 1, monthlyInterestPercent: "2.99", minAmount: 500 },
    money: defaultMoney,
    antifraud: DEFAULT_SETTINGS,
    http: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 1_024 },
    logLevel: "warning",
    ...overrides
  }
}
