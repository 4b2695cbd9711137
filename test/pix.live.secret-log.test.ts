/**
 * With the documented mTLS-less fallback, PIX_WEBHOOK_URL is
 * `https://<host>/providers/pix/<psp>/webhook/<PIX_WEBHOOK_SECRET>` (docs/providers.md step 5). The API role
 * logged the whole URL at INFO on every start (src/Live.ts "PIX notice URL registered at the PSP: …"), so the
 * receiver's secret ended up in the process log; it is masked now (`noticeUrlForLog`).
 */
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeCertificates } from "./fakes/pix/certs.ts"
import { type FakePsp, gatewayEnv, startFakePsp } from "./fakes/pix/server.ts"
import { freePort } from "./support/config.ts"
import { createTestDatabase } from "./support/database.ts"
import { type RoleProcess, spawnRole, stopAll } from "./support/processes.ts"

const secret = randomBytes(16).toString("hex")
let psp: FakePsp
let gateway: RoleProcess | undefined

beforeAll(async () => {
  const certs = makeCertificates()
  psp = await startFakePsp({ profile: "efi", certificates: certs })
  const webhookPort = await freePort()
  gateway = await spawnRole(
    "api",
    {
      DATABASE_URL: await createTestDatabase(),
      // The default LOG_LEVEL of a deployment (docs/configuration.md); the harness would set warning.
      LOG_LEVEL: "info",
      JWT_SECRET: randomBytes(32).toString("base64url"),
      CARD_VAULT_KEY: randomBytes(32).toString("base64"),
      ...gatewayEnv(psp, certs, { PIX_TIMEOUT_MS: "5000" }),
      PIX_WEBHOOK_PORT: String(webhookPort),
      PIX_WEBHOOK_HOST: "127.0.0.1",
      PIX_WEBHOOK_TLS_CERT_FILE: certs.files.serverCert,
      PIX_WEBHOOK_TLS_KEY_FILE: certs.files.serverKey,
      PIX_WEBHOOK_SECRET: secret,
      PIX_WEBHOOK_ALLOWED_IPS: "127.0.0.2/31",
      PIX_WEBHOOK_URL: `https://127.0.0.1:${webhookPort}/providers/pix/efi/webhook/${secret}`
    },
    { readyTimeoutMs: 60_000 }
  )
}, 120_000)

afterAll(async () => {
  await stopAll(gateway ? [gateway] : [])
  await psp?.close()
})

describe("PIX_WEBHOOK_SECRET", () => {
  it("is not written to the log when the notice URL is registered at start", async () => {
    const deadline = Date.now() + 15_000
    while (!/PIX notice URL (not )?registered/.test(gateway!.output()) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200))
    }
    const output = gateway!.output()
    expect(output).toMatch(/PIX notice URL (not )?registered/)
    expect(output).not.toContain(secret)
  }, 30_000)
})
