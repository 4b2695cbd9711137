import { createServer, type Server } from "node:http"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withEnv } from "./support/env.ts"
import { client, type Client, liveMerchant } from "./support/http.ts"
import { createCustomer, TOKENIZE, tokenizeBody } from "./support/payments.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * An acquirer's text is not passed to the merchant when it refuses a card at tokenization (src/app/Cards.ts):
 * the 422 says a fixed text per decline code. A Cielo or an e.Rede (or a proxy in front of one) that repeats
 * the card in its message would otherwise put the card number and its CVV in the answer, the request log
 * and the spans (docs/decisions.md "Card data in the gateway's copies").
 */

const PAN = "4556360000009017"
const CVV = "9731"

/** A stand-in acquirer answering `path` with `answer(card as it was sent)`; nothing else. */
const standIn = async (path: string, answer: (card: Record<string, unknown>) => object) => {
  const server: Server = createServer((req, res) => {
    let text = ""
    req.on("data", (c) => (text += c))
    req.on("end", () => {
      if (req.method === "POST" && req.url === path)
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer(JSON.parse(text))))
      else res.writeHead(404).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` }
}

const acquirers = {
  cielo: async () => {
    const { server, url } = await standIn("/1/zeroauth", (card) => ({
      Valid: false,
      ReturnCode: "57",
      ReturnMessage: `Cartao ${card.CardNumber} expirado (CVV ${card.SecurityCode})`
    }))
    const env = {
      LIVE_ACQUIRERS: "cielo",
      CIELO_MERCHANT_ID: randomUUID(),
      CIELO_MERCHANT_KEY: "K".repeat(40),
      CIELO_API_URL: url,
      CIELO_QUERY_URL: url
    }
    return { server, env, code: "expired_card", message: "card data rejected: the card has expired" }
  },
  rede: async () => {
    const { server, url } = await standIn("/v1/transactions", (card) => ({
      returnCode: "101",
      returnMessage: `Nao autorizada: cartao ${card.cardNumber}, codigo de seguranca ${card.securityCode}`
    }))
    const env = { LIVE_ACQUIRERS: "rede", REDE_PV: "12345678", REDE_TOKEN: "t".repeat(32), REDE_API_URL: url }
    return { server, env, code: "card_declined", message: "card data rejected: the acquirer did not verify the card" }
  }
}

for (const [name, start] of Object.entries(acquirers)) {
  describe(`${name}'s message repeating the card at the zero-amount verification`, () => {
    let acquirer: Server
    let server: TestServer
    let api: Client
    let key: string
    let expected: { code: string; message: string }

    beforeAll(async () => {
      const started = await start()
      acquirer = started.server
      expected = { code: started.code, message: started.message }
      server = await withEnv({ ...started.env, ANTIFRAUD: "sandbox" }, () =>
        startTestServer({ rateLimitPerMinute: 100_000 })
      )
      api = client(server.baseUrl)
      key = (await liveMerchant(api)).key
    })
    afterAll(async () => {
      await server?.close()
      acquirer?.close()
    })

    it("is not passed to the merchant: the tokenize-card 422 says a fixed text for its decline code", async () => {
      const customer = await createCustomer(api, key)
      const reply = await api.post(TOKENIZE, tokenizeBody(customer.id, PAN, { securityCode: CVV }), { key })
      expect(reply.status, reply.text).toBe(422)
      expect(reply.text).not.toContain(PAN)
      expect(reply.text).not.toContain(CVV)
      expect({ code: reply.body.code, message: reply.body.message }).toEqual(expected)
    })
  })
}
