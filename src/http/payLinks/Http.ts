import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { PaymentLinks } from "../../app/PaymentLinks.ts"
import { AppConfig } from "../../config/AppConfig.ts"
import { validated } from "../../domain/errors.ts"
import { TransactionId } from "../../domain/ids.ts"
import { linkUnavailable, type VisitTerms } from "../../domain/paymentLink.ts"
import { Ids } from "../../ports/Ids.ts"
import { GatewayApi } from "../Api.ts"
import { CHECKOUT_SECURITY_HEADERS } from "../checkout/headers.ts"
import { invalidLinkResponse } from "../checkout/invalidLink.ts"
import { prefersHtml } from "../checkout/negotiate.ts"
import { clientAddress } from "../shared/clientAddress.ts"
import { rendered } from "../shared/domainErrors.ts"
import { knownLinkId } from "../v1/paymentLinks/Http.ts"
import { linkMethodOf, V1_LINK_METHOD } from "../v1/paymentLinks/command.ts"
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
          const id = yield* knownLinkId(path.id)
          const now = new Date(yield* Clock.currentTimeMillis)
          // The buyer's choice; PaymentLinks.visit decides it against the link, under its row lock.
          const choice = { method: linkMethodOf(payload.method) ?? null, amount: payload.amount }
          // The visit is a v1 charge like any other, checked by the same rules (docs/payment-links.md): a card
          // one carries no card (the buyer types it on the hosted form, choosing 1 to the link's
          // max_installments there: docs/checkout.md "The buyer's installments").
          const charge = (terms: VisitTerms) => {
            const wire: CreateTransactionWire = {
              method: V1_LINK_METHOD[terms.method],
              amount: terms.amount,
              ...(terms.method === "CARD" ? { max_installments: terms.maxInstallments } : {}),
              customer: payload.customer,
              ...(terms.items.length === 0
                ? {}
                : {
                    products: terms.items.map((i) => ({
                      name: i.name,
                      quantity: i.quantity,
                      unit_price: i.unitPrice,
                      ...(i.sku === null ? {} : { sku: i.sku })
                    }))
                  }),
              metadata: terms.metadata
            }
            return validated(decodeCreate(wire, now, config.installments))
          }
          const request = yield* HttpServerRequest.HttpServerRequest
          const from = clientAddress(
            Option.getOrUndefined(request.remoteAddress),
            request.headers[config.forwardedHeader],
            config.trustedProxies,
            config.forwardedHeader
          )
          const created = yield* links.visit(id, choice, charge, TransactionId.make(yield* ids.next), from)
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
