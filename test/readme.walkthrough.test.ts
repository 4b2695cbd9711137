import { spawn, execFileSync } from "node:child_process"
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "./support/config.ts"
import { createTestDatabase } from "./support/database.ts"
import { client } from "./support/http.ts"
import { spawnRole, stopAll, type RoleProcess } from "./support/processes.ts"

/**
 * Issue 23: the README's walkthrough runs as pasted. Every block fenced ```sh (the walkthrough; the
 * ```bash blocks install, start or deploy) runs in order, in one bash, against a fresh service started
 * as the README says (`WEBHOOK_ALLOW_PRIVATE_URLS=true`, `npm start`'s flags). The commands keep the ids
 * they need in shell variables, so nothing is substituted but the two local addresses (the service's
 * and the receiver's port, free ports here). curl runs with --fail-with-body under `set -euo pipefail`:
 * any answer outside 2xx, or an answer without the field a command keeps, stops the run and fails the
 * test, naming the block.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const README = readFileSync(join(ROOT, "README.md"), "utf8")

/** The body of every ```sh block, in order. */
export const shellBlocks = (markdown: string): ReadonlyArray<string> =>
  [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!)

/**
 * What a walkthrough block must never do, since the test runs it in the repository: install, start or
 * test the project (those commands belong in ```bash blocks, which are shown and not run). An `npm ci`
 * run from here would replace the node_modules the suite itself is running from.
 */
const NOT_IN_A_WALKTHROUGH = /\bnpm (ci|install|i|start|test|run (start|test|build|bench))\b|\brm -rf\b/

/** CONTRACT-v1 §7: a percentage fee of amount_total, rounded half up (FEE_* defaults). */
const percentFee = (amount: number, basisPointsTimes100: number) =>
  Math.floor((amount * basisPointsTimes100 + 5000) / 10_000)
const PIX = 99 // 0.99 % in hundredths of a percent
const CARD = 399 // 3.99 %

let service: RoleProcess | undefined
let work: string
beforeAll(async () => {
  // A fresh database of the suite's server (as every spawned-service test); short delays keep the sandbox
  // bank quick.
  service = await spawnRole(
    "all",
    {
      DATABASE_URL: await createTestDatabase(),
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      BOLETO_CONFIRMATION_DELAY_SECONDS: "1",
      WITHDRAWAL_DELAY_SECONDS: "1"
    },
    { readyTimeoutMs: 180_000 }
  )
  work = mkdtempSync(join(tmpdir(), "readme-walkthrough-"))
}, 240_000)
afterAll(async () => {
  await stopAll([service])
  if (work) rmSync(work, { recursive: true, force: true })
})

describe("README walkthrough", () => {
  it("has the blocks the newcomer follows: signup, webhooks, v2 methods, v1, split and withdrawal", () => {
    const all = shellBlocks(README).join("\n")
    for (const step of [
      "/api/auth/signup",
      "/api/webhooks/upsert",
      "npm run --silent receiver",
      '\\"method\\":\\"PIX\\"',
      '\\"method\\":\\"BOLETO\\"',
      '\\"method\\":\\"CARD\\"',
      "/api/payment-gateway/refund",
      "/api/payment-gateway/tokenize-card",
      "/public/v1/transactions",
      "/public/v1/subaccounts",
      "/settle",
      "/public/v1/withdrawals"
    ]) {
      expect(all, step).toContain(step)
    }
    expect(all).not.toMatch(NOT_IN_A_WALKTHROUGH)
    // Nothing a fresh Debian lacks, no placeholder to fill in, no date that goes stale.
    expect(all).not.toMatch(/uuidgen|<[A-Z0-9_]+>|20\d\d-\d\d-\d\dT/)
    expect(README).not.toMatch(/"expires_at":"20\d\d-/)
  })

  it("runs every sh block in order, as pasted, against a fresh service", async () => {
    for (const block of shellBlocks(README)) expect(block, "a walkthrough block").not.toMatch(NOT_IN_A_WALKTHROUGH)
    const receiverPort = await freePort()
    // curl fails on a non-2xx answer, printing its body: the walkthrough expects success everywhere.
    const realCurl = execFileSync("sh", ["-c", "command -v curl"], { encoding: "utf8" }).trim()
    const bin = join(work, "bin")
    execFileSync("mkdir", ["-p", bin])
    writeFileSync(join(bin, "curl"), `#!/bin/sh\nexec ${realCurl} -S --fail-with-body "$@"\n`)
    chmodSync(join(bin, "curl"), 0o755)

    const blocks = shellBlocks(README).map((block) =>
      block
        .replaceAll("http://localhost:3000", service!.baseUrl)
        .replaceAll("127.0.0.1:4000", `127.0.0.1:${receiverPort}`)
    )
    const script = [
      "set -euo pipefail",
      ...blocks.flatMap((block, i) => [`echo "::block ${i + 1} of ${blocks.length}" >&2`, block]),
      'echo "::vars $KEY $SUB $W $TX $HASH $SALE"'
    ].join("\n")
    writeFileSync(join(work, "walkthrough.sh"), script)

    // Its own process group: the receiver the README starts in the background goes with it.
    const bash = spawn("bash", [join(work, "walkthrough.sh")], {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, RECEIVER_PORT: String(receiverPort) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    bash.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    bash.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const code = await new Promise<number | null>((resolve) => bash.once("exit", (c) => resolve(c)))
    try {
      // README_WALKTHROUGH_LOG=<file> keeps the transcript: what a reader sees, to check the README's comments.
      if (process.env.README_WALKTHROUGH_LOG) writeFileSync(process.env.README_WALKTHROUGH_LOG, stderr + stdout)
      const lastBlock = [...stderr.matchAll(/::block (\d+ of \d+)/g)].at(-1)?.[1]
      expect(code, `README block ${lastBlock} failed:\n${stderr.slice(-4000)}\n${stdout.slice(-2000)}`).toBe(0)
      const [key, sub, withdrawal, tx, hash, sale] = stdout.match(/::vars (.*)/)![1]!.split(" ") as [
        string,
        string,
        string,
        string,
        string,
        string
      ]

      // The receiver verified the signatures of the deliveries the walkthrough caused.
      const deadline = Date.now() + 30_000
      const expected = [
        `verified transaction.paid ${tx} PAID`,
        `verified transaction.paid ${hash} paid`,
        `verified transaction.paid ${sale} paid`,
        `verified withdraw.paid ${withdrawal} paid`
      ]
      while (Date.now() < deadline && !expected.every((line) => stdout.includes(line))) {
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
      for (const line of expected) expect(stdout, `receiver output:\n${stdout}`).toContain(line)
      expect(stdout).not.toContain("REFUSED")

      // Money to the centavo, from the rules: the subaccount's 10 % of R$ 100,00 was withdrawn; the merchant
      // keeps two PIX of 15000 less their fee, less the v1 refund of 5000 net of the fee it returns, plus
      // the split sale's net once settled. The /api card refunded in full leaves nothing; the other sales
      // (boleto, card by token, v1 card, billet) are still pending.
      const api = client(service!.baseUrl)
      const subBalance = await api.get(`/public/v1/balance?subaccount_id=${sub}`, { token: key })
      expect(subBalance.body.data).toMatchObject({ available: 0, pending: 0, reserved: 0 })
      const pixNet = 15_000 - percentFee(15_000, PIX)
      const refundNet = 5_000 - Math.floor((percentFee(15_000, PIX) * 5_000 * 2 + 15_000) / (2 * 15_000))
      const saleNet = 10_000 - percentFee(10_000, CARD) - 1_000
      const merchant = await api.get("/public/v1/balance", { token: key })
      expect(merchant.body.data.available).toBe(pixNet + pixNet - refundNet + saleNet)
      const w = await api.get(`/public/v1/withdrawals/${withdrawal}`, { token: key })
      expect(w.body.data).toMatchObject({ amount: 1_000, status: "paid", subaccount_id: sub })
    } finally {
      try {
        process.kill(-bash.pid!, "SIGTERM")
      } catch {
        // already gone
      }
    }
  }, 300_000)
})
