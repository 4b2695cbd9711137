import { timingSafeEqual } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:https"
import type { TLSSocket } from "node:tls"
import { Config, Effect, Either, Layer, Option, Redacted, Runtime, Schema } from "effect"
import { addressListConfig } from "../../../config/addressList.ts"
import { inMode } from "../../../ports/Modes.ts"
import { PixInbox } from "../../../ports/ReceivedPixRepo.ts"
import { receivedOf } from "./BcbPixProvider.ts"
import { WebhookPix } from "./wire.ts"

/**
 * The receiver of the PSP's payment notices: its own TLS listener (PIX_WEBHOOK_PORT), because a PSP
 * authenticates itself with a client certificate its CA issued and that is checked in the TLS handshake,
 * which the public API's listener (behind its proxy) does not see (docs/providers.md, "The receiver").
 *
 * - `POST /providers/pix/<psp>/webhook/pix`: the PSP's client certificate must verify against
 *   PIX_WEBHOOK_CA_FILE.
 * - `POST /providers/pix/<psp>/webhook/<secret>/pix`: Efí's documented fallback when mTLS is skipped: the
 *   secret (PIX_WEBHOOK_SECRET) in the URL and the caller's address in PIX_WEBHOOK_ALLOWED_IPS (addresses
 *   or CIDR ranges: config/addressList.ts).
 *
 * The PSP appends `/pix` to the URL it was given (API Pix `listaPix` callback). The answer is 200 only after
 * every payment of the batch is recorded (so a PSP retries anything not committed), 400 for a body that is
 * not a `{"pix":[…]}`, 401 for a caller not authenticated.
 */
/**
 * The notice URL as it may be logged or printed: with the mTLS-less fallback its last segment is
 * PIX_WEBHOOK_SECRET (`…/webhook/<secret>`, docs/providers.md), one of the two things that authenticate a
 * notice, so it is masked like any credential.
 */
export const noticeUrlForLog = (url: string) => url.replace(/(\/webhook\/)[^/?#]+/, "$1[REDACTED]")

export const ReceiverConfig = Config.all({
  psp: Config.string("PIX_PSP"),
  port: Config.port("PIX_WEBHOOK_PORT"),
  host: Config.string("PIX_WEBHOOK_HOST").pipe(Config.withDefault("0.0.0.0")),
  certFile: Config.string("PIX_WEBHOOK_TLS_CERT_FILE"),
  keyFile: Config.string("PIX_WEBHOOK_TLS_KEY_FILE"),
  caFile: Config.option(Config.string("PIX_WEBHOOK_CA_FILE")),
  secret: Config.option(Config.redacted("PIX_WEBHOOK_SECRET")),
  allowedIps: addressListConfig("PIX_WEBHOOK_ALLOWED_IPS")
})

const MAX_BODY = 1_000_000
const decodeBody = Schema.decodeUnknownEither(Schema.parseJson(WebhookPix))

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export const PixWebhookReceiverLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* ReceiverConfig
    const inbox = yield* PixInbox
    const runtime = yield* Effect.runtime<never>()
    const secret = Option.map(config.secret, Redacted.value)
    const base = `/providers/pix/${config.psp}/webhook`

    const server: Server = createServer(
      {
        cert: readFileSync(config.certFile),
        key: readFileSync(config.keyFile),
        ...(Option.isSome(config.caFile) ? { ca: readFileSync(config.caFile.value) } : {}),
        // Asked for, not demanded: the URL-secret fallback comes without one (and is then checked below).
        requestCert: true,
        rejectUnauthorized: false
      },
      (req, res) => {
        const reply = (status: number, body: object = {}) => {
          res.writeHead(status, { "content-type": "application/json" })
          res.end(JSON.stringify(body))
        }
        const path = (req.url ?? "").split("?")[0]!
        if (req.method !== "POST" || !path.startsWith(base + "/") || !path.endsWith("/pix")) return reply(404)
        const middle = path.slice(base.length + 1, -"/pix".length)
        const socket = req.socket as TLSSocket
        const authenticated =
          middle === ""
            ? Option.isSome(config.caFile) && socket.authorized
            : Option.isSome(secret) &&
              sameSecret(middle.replace(/\/$/, ""), secret.value) &&
              config.allowedIps.includes(req.socket.remoteAddress)
        if (!authenticated) return reply(401, { error: "not authenticated" })
        const chunks: Array<Buffer> = []
        let size = 0
        req.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size > MAX_BODY) req.destroy()
          else chunks.push(chunk)
        })
        req.on("end", () => {
          const decoded = decodeBody(Buffer.concat(chunks).toString("utf8"))
          if (Either.isLeft(decoded)) return reply(400, { error: "body is not an API Pix notification" })
          // The live PSP's notices pay live charges only (PixInbox).
          Runtime.runPromise(runtime)(inMode("live")(inbox.receive(decoded.right.pix.map(receivedOf), "webhook"))).then(
            (counts) => reply(200, counts),
            () => reply(500, { error: "not recorded; send again" })
          )
        })
      }
    )
    yield* Effect.acquireRelease(
      Effect.async<void, Error>((resume) => {
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen(config.port, config.host, () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    yield* Effect.logInfo(`PIX notices received on ${config.host}:${config.port}${base}/pix`)
  })
)
