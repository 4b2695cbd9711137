import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { PaymentLinks } from "../../app/PaymentLinks.ts"
import { AppConfig } from "../../config/AppConfig.ts"
import { type FieldError, ValidationFailed, validated } from "../../domain/errors.ts"
import { TransactionId } from "../../domain/ids.ts"
import { linkUnavailable, visitAmount } from "../../domain/paymentLink.ts"
import { Ids } from "../../ports/Ids.ts"
import { GatewayApi } from "../Api.ts"
import { CHECKOUT_SECURITY_HEADERS } from "../checkout/headers.ts"
import { invalidLinkResponse } from "../checkout/invalidLink.ts"
import { prefersHtml } from "../checkout/negotiate.ts"
import { clientAddress } from "../shared/clientAddress.ts"
import { rendered } from "../shared/domainErrors.ts"
import { knownLinkId } from "../v1/paymentLinks/Http.ts"
import { LINK_METHOD_WORDS, V1_LINK_METHOD } from "../v1/paymentLinks/command.ts"
import { type CreateTransactionWire, decodeCreate } from "../v1/transactions/command.ts"
import { PAYLINK_CSS, PAYLINK_JS } from "./assets.ts"
import { linkPage, unavailablePage } from "./page.ts"

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { ...CHECKOUT_SECURITY_HEADERS, "cache-control": "no-store" }
  })

const asset = (body: string, contentType: string) =>
  Effect.succeed(
    HttpServerResponse.text(body, {
      contentType,
      headers: { ...CHECKOUT_SECURITY_HEADERS, "cache-control": "public, max-age=300" }
    })
  )

export const PayLinksHttp = HttpApiBuilder.group(GatewayApi, "payLinks", (handlers) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const links = yield* PaymentLinks
    const ids = yield* Ids
    return handlers
      .handle("page", ({ path, request }) =>
        Effect.gen(function* () {
          const { link, merchantName, refusal } = yield* links.open(yield* knownLinkId(path.id))
          if (refusal === null) return html(linkPage(link, merchantName, `/pay/${link.id}`))
          // A browser gets a page saying why and what to do; an API client the 409 envelope.
          if (prefersHtml(request.headers["accept"])) return html(unavailablePage(link, merchantName, refusal), 410)
          return yield* linkUnavailable(refusal)
        }).pipe(
          Effect.catchTag("NotFound", (error) =>
            prefersHtml(request.headers["accept"]) ? Effect.succeed(invalidLinkResponse()) : Effect.fail(error)
          ),
          rendered
        )
      )
      .handle("visit", ({ path, payload }) =>
        Effect.gen(function* () {
          const { link, refusal } = yield* links.open(yield* knownLinkId(path.id))
          if (refusal !== null) return yield* linkUnavailable(refusal)
          const errors: Array<FieldError> = []
          const method = (LINK_METHOD_WORDS as Record<string, (typeof link.methods)[number] | undefined>)[
            payload.method
          ]
          if (method === undefined || !link.methods.includes(method)) {
            const allowed = link.methods.map((m) => V1_LINK_METHOD[m]).join(", ")
            errors.push({ field: "method", message: `method must be one of this link's: ${allowed}` })
          }
          const amount = visitAmount(link, payload.amount)
          if ("error" in amount) errors.push(amount.error)
          if (errors.length > 0 || "error" in amount) return yield* new ValidationFailed({ errors })
          // The visit is a v1 charge like any other, checked by the same rules (docs/payment-links.md): a card
          // one carries no card (the buyer types it on the hosted form, choosing 1 to the link's
          // max_installments there: docs/checkout.md "The buyer's installments").
          const wire: CreateTransactionWire = {
            method: payload.method as CreateTransactionWire["method"],
            amount: amount.amount,
            ...(method === "CARD" ? { max_installments: link.maxInstallments } : {}),
            customer: payload.customer,
            ...(link.items.length === 0
              ? {}
              : {
                  products: link.items.map((i) => ({
                    name: i.name,
                    quantity: i.quantity,
                    unit_price: i.unitPrice,
                    ...(i.sku === null ? {} : { sku: i.sku })
                  }))
                }),
            metadata: { ...(link.metadata ?? {}), payment_link_id: link.id }
          }
          const now = new Date(yield* Clock.currentTimeMillis)
          const command = yield* validated(decodeCreate(wire, now, config.installments))
          const request = yield* HttpServerRequest.HttpServerRequest
          const from = clientAddress(
            Option.getOrUndefined(request.remoteAddress),
            request.headers[config.forwardedHeader],
            config.trustedProxies,
            config.forwardedHeader
          )
          const created = yield* links.visit(link, command, TransactionId.make(yield* ids.next), from)
          const token = created.details.checkoutToken
          return HttpServerResponse.unsafeJson(
            { checkout_url: `${config.publicBaseUrl}/checkout/${token}` },
            { status: 201, headers: { "cache-control": "no-store" } }
          )
        }).pipe(rendered)
      )
      .handle("script", () => asset(PAYLINK_JS, "text/javascript; charset=utf-8"))
      .handle("style", () => asset(PAYLINK_CSS, "text/css; charset=utf-8"))
  })
)
