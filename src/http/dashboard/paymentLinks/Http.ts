import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Schema } from "effect"
import { PaymentLinks } from "../../../app/PaymentLinks.ts"
import { AppConfig } from "../../../config/AppConfig.ts"
import { type FieldError, ValidationFailed, validated } from "../../../domain/errors.ts"
import { PaymentLinkId } from "../../../domain/ids.ts"
import type { PaymentLinkRecord } from "../../../domain/paymentLink.ts"
import { Ids } from "../../../ports/Ids.ts"
import { GatewayApi } from "../../Api.ts"
import { rendered } from "../../shared/domainErrors.ts"
import { withLivemode } from "../../shared/livemode.ts"
import { V1PaymentLink } from "../../v1/paymentLinks/Api.ts"
import { knownLinkId } from "../../v1/paymentLinks/Http.ts"
import { decodeCreateLink, decodeUpdateLink } from "../../v1/paymentLinks/command.ts"
import { v1PaymentLink } from "../../v1/paymentLinks/present.ts"
import { presentTransaction } from "../present.ts"
import { dashboardTenant } from "../tenant.ts"

/** `page` from 1 and `per_page` 1–100 (default 20), each bad one named. */
const rangeOf = (q: { readonly page?: string | undefined; readonly per_page?: string | undefined }) => {
  const errors: Array<FieldError> = []
  const number = (name: "page" | "per_page", fallback: number, max: number) => {
    const raw = q[name]
    if (raw === undefined) return fallback
    if (/^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= max) return Number(raw)
    errors.push({ field: name, message: `${name} must be an integer from 1 to ${max}` })
    return fallback
  }
  const page = number("page", 1, 1_000_000)
  const limit = number("per_page", 20, 100)
  return errors.length > 0
    ? Effect.fail(new ValidationFailed({ errors }))
    : Effect.succeed({ offset: (page - 1) * limit, limit })
}

export const DashboardPaymentLinksHttp = HttpApiBuilder.group(GatewayApi, "dashboardPaymentLinks", (handlers) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const links = yield* PaymentLinks
    const ids = yield* Ids
    const tenant = yield* dashboardTenant
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
    const present = (l: PaymentLinkRecord) =>
      Effect.flatMap(now, (at) =>
        Effect.flatMap(withLivemode(v1PaymentLink(config.publicBaseUrl, l, at)), (body) =>
          Schema.encode(V1PaymentLink)(body).pipe(Effect.orDie)
        )
      )
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const accountId = yield* tenant
          const page = yield* links.page(accountId, {}, yield* rangeOf(urlParams))
          return { data: yield* Effect.forEach(page.rows, present), total: page.total }
        }).pipe(rendered)
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const accountId = yield* tenant
          const id = PaymentLinkId.make(yield* ids.next)
          const link = yield* validated(decodeCreateLink(payload, id, yield* now, config.installments))
          return yield* present(yield* links.create(accountId, link))
        }).pipe(rendered)
      )
      .handle("update", ({ path, payload }) =>
        Effect.gen(function* () {
          const accountId = yield* tenant
          const id = yield* knownLinkId(path.id)
          const changes = yield* validated(decodeUpdateLink(payload, yield* now, config.installments))
          return yield* present(yield* links.update(accountId, id, changes))
        }).pipe(rendered)
      )
      .handle("deactivate", ({ path }) =>
        Effect.gen(function* () {
          const accountId = yield* tenant
          return yield* present(yield* links.deactivate(accountId, yield* knownLinkId(path.id)))
        }).pipe(rendered)
      )
      .handle("activate", ({ path }) =>
        Effect.gen(function* () {
          const accountId = yield* tenant
          return yield* present(yield* links.activate(accountId, yield* knownLinkId(path.id)))
        }).pipe(rendered)
      )
      .handle("transactions", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const accountId = yield* tenant
          const id = yield* knownLinkId(path.id)
          const page = yield* links.transactions(accountId, id, yield* rangeOf(urlParams))
          return {
            data: page.rows.map(({ transaction: t }) =>
              presentTransaction(t, t.buyer === null ? null : { name: t.buyer.name, document: t.buyer.document })
            ),
            total: page.total
          }
        }).pipe(rendered)
      )
  })
)
