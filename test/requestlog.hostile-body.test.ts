import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { until } from "./support/payments-fixtures.ts"
import { client, signup } from "./support/http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * The request log keeps a body that is not JSON as its text (docs/webhooks.md "Request log"), and a merchant's
 * body is untrusted: a raw NUL byte, which PostgreSQL's text cannot hold, is kept as U+FFFD, so the line is
 * written, and so are the other accounts' lines written in the same statement.
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ rateLimitPerMinute: 100_000 })
})
afterAll(async () => {
  await server?.close()
})

/** The log line of a request, by its `X-Request-Id`, once written. */
const logged = async (api: ReturnType<typeof client>, key: string, reply: { headers: Headers }) =>
  until(
    `request ${reply.headers.get("x-request-id")} logged`,
    async () => {
      const page = await api.get("/api/request-log", { key })
      return page.body.requests.find((r: { requestId: string }) => r.requestId === reply.headers.get("x-request-id"))
    },
    10_000
  )

describe("a request body holding a NUL byte", () => {
  it("is logged with U+FFFD in its place, and the lines queued with it are written too", async () => {
    const api = client(server.baseUrl)
    const hostile = await signup(api, "Loja NUL")
    const other = await signup(api, "Loja Vizinha")
    // A raw NUL inside a string is not JSON (a 400), logged as text; an escaped one is JSON and stays escaped.
    const replies = await Promise.all([
      api.post("/public/v1/transactions", undefined, { token: hostile.key, raw: '{"method":"pix","note":"a\u0000b"}' }),
      api.post("/public/v1/transactions", undefined, {
        token: hostile.key,
        raw: '{"method":"pix","note":"a\\u0000b",}'
      }),
      api.post("/public/v1/transactions", undefined, { token: other.key, raw: '{"method":"pix",}' })
    ])
    expect(replies.map((r) => r.status)).toEqual([400, 400, 400])
    const [raw, escaped, neighbour] = await Promise.all([
      logged(api, hostile.key, replies[0]),
      logged(api, hostile.key, replies[1]),
      logged(api, other.key, replies[2])
    ])
    expect([raw.body, escaped.body, neighbour.body]).toEqual([
      '{"method":"pix","note":"a\uFFFDb"}',
      '{"method":"pix","note":"a\\u0000b",}',
      '{"method":"pix",}'
    ])
  })
})
