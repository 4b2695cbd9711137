import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startLoopbackFake } from "../fakes/loopback/server.ts"
import { createTestDatabase } from "./database.ts"
import { client, liveMerchant } from "./http.ts"
import { spawnRole } from "./processes.ts"

/**
 * The settings of live boleto by the bank's CNAB 240 files (docs/providers.md "Boleto: banks by CNAB 240")
 * that the tests of that bank share: its agreement, account and company, and the two directories files are
 * exchanged through. The cycle's settings are each test's own.
 */
export const bankByFilesEnv = (remessaDir: string, retornoDir: string) => ({
  LIVE_BOLETO_PROVIDER: "bb-cnab240",
  CNAB_AGREEMENT: "1234567",
  CNAB_AGENCY: "1234-5",
  CNAB_ACCOUNT: "123456-7",
  CNAB_COMPANY_DOCUMENT: "11.222.333/0001-81",
  CNAB_COMPANY_NAME: "Payment Gateway",
  CNAB_REMESSA_DIR: remessaDir,
  CNAB_RETORNO_DIR: retornoDir
})

/**
 * A live `all` process with the bank by files (its directories made here), the test-only loopback PSP as the
 * live rail its live keys need (docs/providers.md), and one live merchant: what the tests of that bank start
 * from. `retornoPollSeconds`: how often the watched directory is read (600: never, the test hands files in).
 */
export const startBankByFilesService = async (options: {
  readonly prefix: string
  readonly merchantName: string
  readonly uploadToken: string
  readonly retornoPollSeconds: number
}) => {
  const fake = await startLoopbackFake()
  const databaseUrl = await createTestDatabase()
  const remessaDir = mkdtempSync(join(tmpdir(), `${options.prefix}-remessa-`))
  const retornoDir = mkdtempSync(join(tmpdir(), `${options.prefix}-retorno-`))
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_PER_MINUTE: "1000000",
    LIVE_LOOPBACK_ALLOWED: "true",
    LOOPBACK_PROVIDER_URL: fake.url,
    LIVE_PIX_PROVIDER: "loopback",
    ...bankByFilesEnv(remessaDir, retornoDir),
    // No remessa by the cycle during a test (the CLI cuts it).
    CNAB_REMESSA_CYCLE_MINUTES: "600",
    CNAB_RETORNO_POLL_SECONDS: String(options.retornoPollSeconds),
    CNAB_UPLOAD_TOKEN: options.uploadToken
  }
  const service = await spawnRole("all", env, { readyTimeoutMs: 90_000 })
  const api = client(service.baseUrl)
  const merchant = await liveMerchant(api, options.merchantName)
  return { fake, databaseUrl, remessaDir, retornoDir, env, service, api, merchant }
}
