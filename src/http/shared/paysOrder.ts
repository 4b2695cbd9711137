import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import type { OrderId } from "../../domain/ids.ts"
import { isUuid } from "../../domain/uuid.ts"

/**
 * The order a request pays, from the body field its route names (annotated `PaysOrder`), for the
 * admission to read ahead (securityLive.ts). Anything that is not a UUID there is left to the route's
 * schema, which answers 400 naming the field: nothing is read ahead for it.
 */
export const orderNamed = (field: string) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = yield* Effect.option(request.json)
    if (Option.isNone(body) || typeof body.value !== "object" || body.value === null) return undefined
    const value: unknown = (body.value as Record<string, unknown>)[field]
    return typeof value === "string" && isUuid(value) ? (value as OrderId) : undefined
  })
