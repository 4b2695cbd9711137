import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { buildBrCode } from "../../../src/domain/brcode.ts"

/** A fixed EVP (random key) of no real account: the loopback's codes are well formed but pay no one. */
const LOOPBACK_PIX_KEY = "6f1c0d52-4b7e-4c1a-9a53-2f0e8d1b7c44"

/**
 * The local server behind the test-only `loopback` live provider (src/adapters/providers/loopback/): it
 * approves every charge (or declines amounts ending in 02), remembers charges by idempotency key for the
 * status query, verifies any card not past its expiry, makes up a BR Code for PIX (and answers the status
 * of the PIX charges it issued, open, and of no other), and counts every TCP
 * connection it accepts, so that a test can prove a mode never reached it.
 */
export interface LoopbackFake {
  readonly url: string
  /** TCP connections accepted since start. */
  readonly connections: () => number
  readonly charges: ReadonlyMap<string, { readonly amount: number; readonly last4: string }>
  readonly pixCharges: ReadonlyArray<{ readonly transactionId: string; readonly amount: number }>
  readonly close: () => Promise<void>
}

const read = async (request: IncomingMessage) => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>)
}

export const startLoopbackFake = async (port = 0): Promise<LoopbackFake> => {
  let connections = 0
  const charges = new Map<string, { amount: number; last4: string; outcome: Record<string, unknown> }>()
  const pixCharges: Array<{ transactionId: string; amount: number }> = []
  // The PIX charges it issued, by txid: the status query knows these and no other.
  const pixTxids = new Set<string>()
  const server = createServer(async (request, response) => {
    const body = await read(request)
    const answer = (status: number, value: unknown) => {
      response.writeHead(status, { "content-type": "application/json" })
      response.end(JSON.stringify(value))
    }
    const url = request.url ?? "/"
    if (request.method === "POST" && url === "/charges") {
      const key = String(body.idempotencyKey)
      const amount = Number(body.amount)
      const known = charges.get(key)
      if (known) return answer(200, known.outcome)
      const outcome =
        amount % 100 === 2
          ? { outcome: "declined", code: "card_declined" }
          : { outcome: "approved", authorizationCode: "LB0001", reference: `lb_${key}` }
      charges.set(key, { amount, last4: String(body.last4), outcome })
      return answer(200, outcome)
    }
    const status = /^\/charges\/(.+)$/.exec(url)
    if (request.method === "GET" && status) {
      const known = charges.get(decodeURIComponent(status[1]!))
      return known ? answer(200, known.outcome) : answer(404, {})
    }
    if (request.method === "POST" && url === "/verifications") {
      // A card is good through the last day of its expiry month (UTC is close enough for a test server).
      const now = new Date()
      const expired =
        Number(body.expYear) * 12 + Number(body.expMonth) < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1
      return answer(200, expired ? { ok: false, code: "expired_card" } : { ok: true })
    }
    if (request.method === "POST" && (url === "/refunds" || url === "/pix/refunds")) return answer(200, { ok: true })
    if (request.method === "POST" && url === "/pix") {
      const transactionId = String(body.transactionId)
      pixCharges.push({ transactionId, amount: Number(body.amount) })
      // A static code's txid is at most 25 alphanumerics (BCB manual); the first 25 of a UUID's hex stay unique.
      const txid = transactionId.replace(/[^A-Za-z0-9]/g, "").slice(0, 25)
      pixTxids.add(txid)
      // A real BR Code (the port hands the buyer "the EMV payload as the PSP issued it", and a banking app or
      // our QR must read it), named LOOPBACK so that a test can tell which rail issued it.
      const emv = buildBrCode({
        pixKey: LOOPBACK_PIX_KEY,
        merchantName: "LOOPBACK",
        merchantCity: "SAO PAULO",
        amountCents: Number(body.amount),
        txid
      })
      return answer(200, { emv, txid })
    }
    const pixStatus = /^\/pix\/([^/]+)$/.exec(url)
    if (request.method === "GET" && pixStatus) {
      // Open until it expires (no payment is ever made here); a txid it never issued is not found.
      const txid = decodeURIComponent(pixStatus[1]!)
      return pixTxids.has(txid) ? answer(200, { txid, status: "OPEN" }) : answer(404, {})
    }
    return answer(404, {})
  })
  server.on("connection", () => {
    connections += 1
  })
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  const { port: bound } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${bound}`,
    connections: () => connections,
    charges,
    pixCharges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
