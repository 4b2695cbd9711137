/**
 * A local webhook receiver for the README walkthrough (`npm run receiver`): listens on
 * 127.0.0.1:RECEIVER_PORT (4000), verifies every delivery's Standard Webhooks signature with
 * WEBHOOK_SECRET (the `whsec_…` that POST /api/webhooks/upsert answered), prints one line per delivery
 * and answers 200 — or 400 to a forged or stale one, which the gateway then retries (README "Webhooks").
 *
 * The gateway delivers to an http:// or loopback URL only when started with
 * WEBHOOK_ALLOW_PRIVATE_URLS=true (development; production URLs are public https).
 */
import { createServer } from "node:http"
import { Webhook } from "standardwebhooks"

const secret = process.env.WEBHOOK_SECRET
if (secret === undefined || !secret.startsWith("whsec_")) {
  console.error("receiver: set WEBHOOK_SECRET to the whsec_… secret that POST /api/webhooks/upsert answered")
  process.exit(2)
}
const port = Number(process.env.RECEIVER_PORT ?? 4000)
const verifier = new Webhook(secret)

const server = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    // The signature covers the body exactly as received: verify the raw bytes, then parse.
    const body = Buffer.concat(chunks).toString("utf8")
    const header = (name: string) => String(request.headers[name] ?? "")
    try {
      const event = verifier.verify(body, {
        "webhook-id": header("webhook-id"),
        "webhook-timestamp": header("webhook-timestamp"),
        "webhook-signature": header("webhook-signature")
      }) as { event?: string; data?: Record<string, unknown> }
      const data = event.data ?? {}
      const subject = data.transactionId ?? data.hash ?? data.id ?? ""
      const status = data.status ?? ""
      console.log(`receiver: verified ${event.event} ${subject} ${status} (webhook-id ${header("webhook-id")})`)
      response.writeHead(200, { "content-type": "text/plain" }).end("ok")
    } catch (error) {
      console.log(`receiver: REFUSED a delivery: ${error instanceof Error ? error.message : String(error)}`)
      response.writeHead(400, { "content-type": "text/plain" }).end("bad signature")
    }
  })
})

server.listen(port, "127.0.0.1", () => console.log(`receiver: listening on http://127.0.0.1:${port}/hooks`))
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(0))
