import { HttpApi, HttpApiBuilder, type HttpServerResponse } from "@effect/platform"
// From its own module, not the barrel: the bundle then keeps its script in this module's chunk
// (docs/development.md "Running compiled").
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import { Chunk, Context, Effect, Layer, Option } from "effect"

type Handler = Effect.Effect<HttpServerResponse.HttpServerResponse>

/**
 * The /docs page exactly as HttpApiScalar.layer serves it (its HTML, inlined script and options), read
 * from the route that layer adds to a router of its own, since the library does not export the page
 * alone. Imported by src/http/ops/reference.ts on the first request for /docs. The reference's default
 * fonts would come from a CDN, which fails offline and tells a third party who reads the docs: the
 * system's fonts instead.
 */
export const referencePage = (api: HttpApi.Api["Type"]) =>
  Effect.gen(function* () {
    const layer = HttpApiScalar.layer({ path: "/docs", scalar: { withDefaultFonts: false } })
    // The layer adds its route to the Router it is given (Router.Live is memoized, as in HttpApiBuilder.serve).
    const context = yield* Layer.build(Layer.provideMerge(layer, HttpApiBuilder.Router.Live))
    const router = yield* Context.get(context, HttpApiBuilder.Router).router
    const route = Chunk.findFirst(router.routes, (r) => r.path === "/docs")
    // HttpApiScalar's handler is a constant response: it reads neither the request nor the route.
    return yield* Option.match(route, {
      onNone: () => Effect.dieMessage("HttpApiScalar added no /docs route"),
      onSome: (r) => r.handler as unknown as Handler
    })
  }).pipe(Effect.scoped, Effect.provideService(HttpApi.Api, api))
