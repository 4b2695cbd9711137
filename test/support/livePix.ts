import { randomBytes } from "node:crypto"
import pg from "pg"
import { makeCertificates } from "../fakes/pix/certs.ts"
import { type FakePsp, gatewayEnv, startFakePsp } from "../fakes/pix/server.ts"
import { freePort } from "./config.ts"
import { createTestDatabase } from "./database.ts"
import { client, liveMerchant } from "./http.ts"
import type { Merchant } from "./payments-fixtures.ts"
import { type RoleProcess, spawnRole, stopAll } from "./processes.ts"

export interface LivePix {
  readonly psp: FakePsp
  readonly gateway: RoleProcess
  /** The live tenant's merchant (its key, and the live account's id). */
  readonly merchant: Merchant
  /** For assertions on the gateway's database. */
  readonly db: pg.Pool
  readonly databaseUrl: string
  readonly stop: () => Promise<void>
}

/**
 * A gateway process (role `all`) on a fresh database with a fake PSP as its live PIX rail (Efí's profile,
 * OAuth2 and mTLS with certificates made here), its notices received on an mTLS listener it registered at the
 * PSP at start, and one merchant with a live key. `env` adds or overrides the gateway's variables.
 */
export const startLivePix = async (name: string, env: Record<string, string> = {}): Promise<LivePix> => {
  const certs = makeCertificates()
  const psp = await startFakePsp({ profile: "efi", certificates: certs })
  const webhookPort = await freePort()
  const databaseUrl = await createTestDatabase()
  const gateway = await spawnRole(
    "all",
    {
      DATABASE_URL: databaseUrl,
      JWT_SECRET: randomBytes(32).toString("base64url"),
      CARD_VAULT_KEY: randomBytes(32).toString("base64"),
      RATE_LIMIT_PER_MINUTE: "100000",
      ...gatewayEnv(psp, certs, { PIX_TIMEOUT_MS: "5000" }),
      PIX_WEBHOOK_PORT: String(webhookPort),
      PIX_WEBHOOK_HOST: "127.0.0.1",
      PIX_WEBHOOK_TLS_CERT_FILE: certs.files.serverCert,
      PIX_WEBHOOK_TLS_KEY_FILE: certs.files.serverKey,
      PIX_WEBHOOK_CA_FILE: certs.files.caCert,
      // Registered at the PSP at start (PUT /webhook/{chave}): the PSP's notices reach the gateway.
      PIX_WEBHOOK_URL: `https://127.0.0.1:${webhookPort}/providers/pix/efi/webhook`,
      ...env
    },
    { readyTimeoutMs: 90_000 }
  )
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  const api = client(gateway.baseUrl)
  const m = await liveMerchant(api, name)
  const tenant = await db.query<{ id: string }>("select id from accounts where owner_id = $1 and mode = 'live'", [
    m.accountId
  ])
  const merchant = { api, key: m.key, accountId: tenant.rows[0]!.id }
  const stop = async () => {
    await stopAll([gateway])
    await psp.close()
    await db.end()
  }
  return { psp, gateway, merchant, db, databaseUrl, stop }
}
