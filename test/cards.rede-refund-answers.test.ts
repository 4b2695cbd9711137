import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Either, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeRedeAcquirer } from "../src/adapters/providers/rede/RedeAcquirer.ts"

/**
 * e.Rede's refund answered 2xx with anything but 359, or with a body that cannot be read, does not say
 * whether the refund was made: what e.Rede refunded is read back (docs/providers.md "e.Rede"), never taken
 * as "refused, nothing refunded" (the refund FAILED and the money back with the merchant while the buyer has
 * it). A stand-in e.Rede that records the refund, or not, and then answers as each test says.
 */
let server: Server
let url = ""
let refunds: Array<{ amount: number; status: string }> = []
let answer: { status: number; body: string } = { status: 200, body: "{}" }
let makes = true
/** Another refund e.Rede records meanwhile (not this one). */
let other = 0

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = ""
    req.on("data", (c: Buffer) => (text += c.toString("utf8")))
    req.on("end", () => {
      if (req.method === "GET" && /^\/v1\/transactions\/TID1$/.test(req.url ?? "")) {
        res.writeHead(200, { "content-type": "application/json" })
        return res.end(JSON.stringify({ authorization: { tid: "TID1" }, refunds }))
      }
      if (req.method === "POST" && req.url === "/v1/transactions/TID1/refunds") {
        // e.Rede makes the refund (or not), then answers something other than 359.
        if (makes) refunds.push({ amount: JSON.parse(text).amount, status: "Done" })
        if (other > 0) refunds.push({ amount: other, status: "Done" })
        res.writeHead(answer.status, { "content-type": "application/json" })
        return res.end(answer.body)
      }
      res.writeHead(404)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const refund = (amount: number) => {
  const acquirer = makeRedeAcquirer({ pv: "12345678", token: Redacted.make("t"), apiUrl: url, timeoutMs: 2_000 })
  return Effect.runPromise(
    Effect.either(
      acquirer.refund({ idempotencyKey: "r1", acquirerReference: "TID1", amount, acquirer: "rede" } as never)
    )
  )
}

const outcomeOf = (result: Either.Either<void, unknown>) =>
  Either.isLeft(result) ? (result.left as { outcome?: string }).outcome : "refunded"

describe("e.Rede refund answered 2xx without 359", () => {
  it("a 200 with returnCode 360 for a refund e.Rede made is refunded", async () => {
    refunds = [{ amount: 300, status: "Done" }]
    makes = true
    answer = {
      status: 200,
      body: JSON.stringify({ returnCode: "360", returnMessage: "Refund request has been successful." })
    }
    expect(outcomeOf(await refund(1_000))).toBe("refunded")
  })

  it("a 201 whose body cannot be read, for a refund e.Rede made, is refunded", async () => {
    refunds = []
    makes = true
    answer = { status: 201, body: "<html>ok</html>" }
    expect(outcomeOf(await refund(1_000))).toBe("refunded")
  })

  it("a 200 with another code when nothing was refunded is refused (nothing refunded)", async () => {
    refunds = []
    makes = false
    // 368 "Unsuccessful. Please try again" (360 says e.Rede accepted it: test/cards.rede-return-codes.test.ts).
    answer = { status: 200, body: JSON.stringify({ returnCode: "368", returnMessage: "?" }) }
    expect(outcomeOf(await refund(1_000))).toBe("not_charged")
  })

  it("a 200 with another code when the refunded amount moved by something else stays unknown", async () => {
    refunds = []
    makes = false
    answer = { status: 200, body: JSON.stringify({ returnCode: "360", returnMessage: "?" }) }
    other = 250
    expect(outcomeOf(await refund(1_000))).toBe("unknown")
    other = 0
  })

  it("a 4xx is refused without reading back", async () => {
    refunds = []
    makes = false
    answer = {
      status: 422,
      body: JSON.stringify({ returnCode: "355", returnMessage: "Transaction already canceled." })
    }
    expect(outcomeOf(await refund(1_000))).toBe("not_charged")
  })
})
