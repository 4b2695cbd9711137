import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"
import { NotAcceptable, Unauthorized, UnsupportedMediaType } from "../shared/errors.ts"
import { KeyAuthentication } from "../shared/securityLive.ts"
import { ApiTokenAuth } from "./security.ts"

const invalidToken = Unauthorized.of({
  message: "api_token (query) or Authorization: Bearer <API key> is missing or invalid",
  code: "invalid_api_key"
})

/** Whether an Accept header admits JSON: absent, `*\/*`, `application/*`, `application/json` (q > 0). */
export const acceptsJson = (accept: string | undefined) =>
  accept === undefined ||
  accept.trim() === "" ||
  accept.split(",").some((part) => {
    const [range = "", ...params] = part.split(";").map((p) => p.trim().toLowerCase())
    const q = params.find((p) => p.startsWith("q="))
    if (q !== undefined && Number(q.slice(2)) === 0) return false
    return range === "*/*" || range === "application/*" || range === "application/json" || range.endsWith("+json")
  })

const isJson = (contentType: string | undefined) => {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
}

const conventions = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (!acceptsJson(request.headers["accept"])) {
    return yield* Effect.fail(
      NotAcceptable.of({
        message: "this API answers application/json only; send Accept: application/json",
        code: "not_acceptable"
      })
    )
  }
  const hasBody = request.method === "POST" || request.method === "PUT" || request.method === "PATCH"
  const length = request.headers["content-length"]
  if (hasBody && (length === undefined || length !== "0") && !isJson(request.headers["content-type"])) {
    return yield* Effect.fail(
      UnsupportedMediaType.of({
        message: "send the body as Content-Type: application/json",
        code: "unsupported_media_type"
      })
    )
  }
  // The key from the header first, then the query: the header is the recommended form.
  const authorization = request.headers["authorization"] ?? ""
  if (/^bearer /i.test(authorization)) return authorization.slice(7).trim()
  const url = new URL(request.url, "http://localhost")
  return url.searchParams.get("api_token") ?? ""
})

/**
 * Both security schemes resolve the key the same way; the first (query) only hands over to the second
 * so that a request is authenticated, and its rate-limit slot taken, exactly once.
 */
export const ApiTokenAuthLive = Layer.effect(
  ApiTokenAuth,
  Effect.map(KeyAuthentication, (auth) =>
    ApiTokenAuth.of({
      apiToken: () => Effect.fail(invalidToken),
      apiKeyBearer: () => Effect.flatMap(conventions, (key) => auth.authenticate(key, invalidToken))
    })
  )
)
