import { IncomingMessage } from "node:http"
import { Socket } from "node:net"
import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { describe, expect, it, vi } from "vitest"
import { acceptBody } from "./body.ts"

/** A POST as the Node server hands it on: headers, and the body read from its IncomingMessage. */
const request = (body: string) => {
  const incoming = new IncomingMessage(new Socket())
  incoming.method = "POST"
  incoming.url = "/api/payment-gateway/process"
  incoming.headers = { "content-type": "application/json", "content-length": String(body.length) }
  incoming.push(body)
  incoming.push(null)
  const web = HttpServerRequest.fromWeb(
    new Request("http://localhost/api/payment-gateway/process", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(body.length) }
    })
  )
  return Object.create(web, { source: { get: () => incoming } }) as HttpServerRequest.HttpServerRequest
}

describe("acceptBody", () => {
  it("hands on a body parsed once, however many read its JSON", async () => {
    const accepted = await Effect.runPromise(acceptBody(request('{"orderId":"x","amount":100}')))
    const parse = vi.spyOn(JSON, "parse")
    try {
      const first = await Effect.runPromise(accepted.json)
      const second = await Effect.runPromise(accepted.json)
      expect(first).toEqual({ orderId: "x", amount: 100 })
      expect(second).toBe(first)
      expect(parse).toHaveBeenCalledTimes(1)
    } finally {
      parse.mockRestore()
    }
  })

  it("a body that is no JSON fails each read, as before", async () => {
    const accepted = await Effect.runPromise(acceptBody(request('{"orderId":')))
    expect((await Effect.runPromiseExit(accepted.json))._tag).toBe("Failure")
    expect((await Effect.runPromiseExit(accepted.json))._tag).toBe("Failure")
  })
})
