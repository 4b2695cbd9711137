import { createHash, timingSafeEqual } from "node:crypto"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Config, Effect, Option, ParseResult, Redacted, Schema } from "effect"
import { BoletoFiles } from "../../app/BoletoFiles.ts"
import { BadRequest, Conflict, NotFound, Unauthorized } from "../shared/errors.ts"

/** `{ "content": "<the retorno file, its lines as the bank wrote them>" }`; nothing else. */
const Upload = Schema.Struct({ content: Schema.String.pipe(Schema.minLength(1)) })
const decodeUpload = Schema.decodeUnknownEither(Upload, { onExcessProperty: "error", errors: "all" })

const digest = (text: string) => createHash("sha256").update(text).digest()

/**
 * CNAB_UPLOAD_TOKEN, at least 32 characters: the bank agreement and its files are the platform's, not a
 * merchant's (docs/boleto.md "Who is named on it"), so an operator's secret guards the upload, not a
 * merchant's key or login (docs/providers.md "Boleto: banks by CNAB 240").
 */
const uploadToken = Config.option(Config.redacted("CNAB_UPLOAD_TOKEN")).pipe(
  Config.validate({
    message: "CNAB_UPLOAD_TOKEN must be at least 32 characters (a random secret the operator's upload sends as Bearer)",
    validation: (t) => Option.isNone(t) || Redacted.value(t.value).length >= 32
  })
)

/**
 * `POST /ops/bank/retornos`: an operator uploads a bank's retorno (the third way in, beside the watched
 * directory and the CLI; the same ingestion). `Authorization: Bearer <CNAB_UPLOAD_TOKEN>`, compared in
 * constant time (both sides hashed to equal lengths). 200 processed or already received (nothing
 * changed), 202 held (out of sequence), 409 refused (a used number, behind the sequence), 400 unreadable;
 * every answer carries the report with each rejected line's number. Without CNAB_UPLOAD_TOKEN the route
 * does not exist (404). Outside the OpenAPI document: an operator's route, not the merchants' API.
 */
export const BankRetornoUploadLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const token = yield* uploadToken
    const boletoFiles = yield* BoletoFiles
    const expected = Option.map(token, (t) => digest(Redacted.value(t)))
    yield* router.post(
      "/ops/bank/retornos",
      Effect.gen(function* () {
        if (Option.isNone(expected)) {
          return yield* Effect.fail(
            NotFound.of({ message: "Route POST /ops/bank/retornos not found", code: "route_not_found" })
          )
        }
        const request = yield* HttpServerRequest.HttpServerRequest
        const match = /^Bearer (\S+)$/.exec(request.headers["authorization"] ?? "")
        if (match === null || !timingSafeEqual(digest(match[1]!), expected.value)) {
          return yield* Effect.fail(
            Unauthorized.of({
              message: "Authorization: Bearer <CNAB_UPLOAD_TOKEN> is missing or wrong",
              code: "invalid_token"
            })
          )
        }
        const body = decodeUpload(yield* Effect.orElseSucceed(request.json, () => null))
        if (body._tag === "Left") {
          // Each broken field named: an unknown one as such, `content` when it is missing or not text.
          const errors = ParseResult.ArrayFormatter.formatErrorSync(body.left).map((issue) => {
            const field = issue.path.length === 0 ? "content" : issue.path.map(String).join(".")
            return {
              field,
              message:
                issue._tag === "Unexpected" ? `${field} is not a known field` : `${field} must be the retorno's text`
            }
          })
          return yield* Effect.fail(
            BadRequest.of({ message: errors.map((e) => e.message).join("; "), code: "validation_failed", errors })
          )
        }
        const result = yield* boletoFiles.ingest(body.right.content, "upload")
        switch (result.outcome) {
          case "unreadable":
            return yield* Effect.fail(
              BadRequest.of({
                message: `content is not a readable retorno: ${result.message}`,
                code: "unreadable_retorno",
                errors: [{ field: "content", message: `content is not a readable retorno: ${result.message}` }]
              })
            )
          case "refused":
            return yield* Effect.fail(Conflict.of({ message: result.message, code: "retorno_refused" }))
          case "held":
            return HttpServerResponse.unsafeJson(result, { status: 202 })
          default:
            return HttpServerResponse.unsafeJson(result, { status: 200 })
        }
      })
    )
  })
)
