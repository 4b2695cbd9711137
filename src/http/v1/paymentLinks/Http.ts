import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Either, Schema } from "effect"
import { PaymentLinks } from "../../../app/PaymentLinks.ts"
import type { TransactionView } from "../../../app/Transactions.ts"
import { AppConfig } from "../../../config/AppConfig.ts"
import { NotFound, ValidationFailed, validated } from "../../../domain/errors.ts"
import { PaymentLinkId } from "../../../domain/ids.ts"
import type { PaymentLinkRecord } from "../../../domain/paymentLink.ts"
import { isUuid } from "../../../domain/uuid.ts"
import { GatewayApi } from "../../Api.ts"
import { idempotentPost } from "../../shared/idempotency.ts"
import { withLivemode } from "../../shared/livemode.ts"
import { CurrentPrincipal } from "../../shared/security.ts"
import { listWindow, paginationOf } from "../listParams.ts"
import { renderedV1 } from "../render.ts"
import { V1Transaction } from "../transactions/Api.ts"
import { v1Transaction } from "../transactions/present.ts"
import { V1PaymentLink } from "./Api.ts"
import { decodeCreateLink, decodeUpdateLink } from "./command.ts"
import { v1PaymentLink } from "./present.ts"

/** An id that is not a UUID names no link: 404, as for another account's (CONTRACT-v1 §1). */
export const knownLinkId = (id: string) =>
  isUuid(id) ? Effect.succeed(PaymentLinkId.make(id)) : Effect.fail(new NotFound({ message: "payment link not found" }))

export const V1PaymentLinksHttp = HttpApiBuilder.group(GatewayApi, "v1PaymentLinks", (handlers) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const links = yield* PaymentLinks
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
    // Live records carry `livemode: true` (http/shared/livemode.ts).
    const present = (l: PaymentLinkRecord) =>
      Effect.flatMap(now, (at) =>
        Effect.flatMap(withLivemode(v1PaymentLink(config.publicBaseUrl, l, at)), (body) =>
          Schema.encode(V1PaymentLink)(body).pipe(Effect.orDie)
        )
      )
    const presentTransaction = (view: TransactionView) =>
      Effect.flatMap(withLivemode(v1Transaction(config.publicBaseUrl, view)), (body) =>
        Schema.encode(V1Transaction)(body).pipe(Effect.orDie)
      )

    return handlers
      .handle("create", ({ headers, payload }) =>
        idempotentPost(headers["idempotency-key"], (accountId, id) =>
          Effect.gen(function* () {
            const link = yield* validated(
              decodeCreateLink(payload, PaymentLinkId.make(id), yield* now, config.installments)
            )
            const created = yield* links.create(accountId, link)
            return { status: 201, body: { success: true, data: yield* present(created) } }
          }).pipe(renderedV1)
        )
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const id = yield* knownLinkId(path.id)
          return { success: true as const, data: yield* present(yield* links.get(accountId, id)) }
        }).pipe(renderedV1)
      )
      .handle("update", ({ path, payload }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const id = yield* knownLinkId(path.id)
          const changes = yield* validated(decodeUpdateLink(payload, yield* now, config.installments))
          return { success: true as const, data: yield* present(yield* links.update(accountId, id, changes)) }
        }).pipe(renderedV1)
      )
      .handle("deactivate", ({ path }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const id = yield* knownLinkId(path.id)
          return { success: true as const, data: yield* present(yield* links.deactivate(accountId, id)) }
        }).pipe(renderedV1)
      )
      .handle("activate", ({ path }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const id = yield* knownLinkId(path.id)
          return { success: true as const, data: yield* present(yield* links.activate(accountId, id)) }
        }).pipe(renderedV1)
      )
      .handle("list", ({ urlParams: q }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const window = listWindow("payment_links", q)
          const errors = Either.isLeft(window) ? [...window.left] : []
          if (q.active !== undefined && q.active !== "true" && q.active !== "false")
            errors.push({ field: "active", message: "active must be true or false" })
          if (errors.length > 0 || Either.isLeft(window)) return yield* new ValidationFailed({ errors })
          const page = yield* links.page(
            accountId,
            {
              active: q.active === undefined ? undefined : q.active === "true",
              createdFrom: window.right.createdFrom,
              createdBefore: window.right.createdBefore
            },
            window.right.range
          )
          return {
            success: true as const,
            data: yield* Effect.forEach(page.rows, present),
            pagination: paginationOf(window.right, page)
          }
        }).pipe(renderedV1)
      )
      .handle("transactions", ({ path, urlParams: q }) =>
        Effect.gen(function* () {
          const { accountId } = yield* CurrentPrincipal
          const id = yield* knownLinkId(path.id)
          const window = listWindow("transactions", q)
          if (Either.isLeft(window)) return yield* new ValidationFailed({ errors: window.left })
          const page = yield* links.transactions(accountId, id, window.right.range)
          return {
            success: true as const,
            data: yield* Effect.forEach(page.rows, presentTransaction),
            pagination: paginationOf(window.right, page)
          }
        }).pipe(renderedV1)
      )
  })
)
