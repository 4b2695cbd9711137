import { createServer } from "node:http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Option, Schema, Tracer } from "effect"
import { describe, expect, it } from "vitest"
import { ServeOnNarrowContext } from "./serve.ts"

class Greeting extends Context.Tag("Greeting")<Greeting, string>() {}

class Api extends HttpApi.make("test").add(
  HttpApiGroup.make("greetings").add(HttpApiEndpoint.get("hello", "/hello").addSuccess(Schema.String))
) {}

/** The handler takes its service from the context its group's layer was built in. */
const GreetingsLive = HttpApiBuilder.group(Api, "greetings", (handlers) => handlers.handle("hello", () => Greeting))

/** A process's worth of services: 60 of them, as the gateway's layers give the server's. */
const Process = Layer.succeedContext(
  Array.from({ length: 60 }, (_, i) => i).reduce(
    (context, i) => Context.add(context, Context.GenericTag<string, number>(`Service${i}`), i),
    Context.make(Greeting, "olá")
  )
)

/** What the outermost middleware saw of a request's context. */
interface Seen {
  size: number
  span: boolean
}

/** Serves the API with `serve`, and answers GET /hello with what its request started with. */
const run = <E, R>(serve: Layer.Layer<never, E, R>, seen: Seen = { size: 0, span: false }) =>
  Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    const address = server.address as HttpServer.TcpAddress
    const response = yield* Effect.promise(() => fetch(`http://127.0.0.1:${address.port}/hello`))
    return { status: response.status, body: yield* Effect.promise(() => response.json()), ...seen }
  }).pipe(
    Effect.provide(
      serve.pipe(
        Layer.provide(
          HttpApiBuilder.middleware((app) =>
            Effect.flatMap(Effect.context<never>(), (context) => {
              seen.size = context.unsafeMap.size
              seen.span = Option.isSome(Context.getOption(context, Tracer.ParentSpan))
              return app
            })
          )
        ),
        Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(GreetingsLive))),
        Layer.provide(Process),
        Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
      )
    ),
    Effect.scoped
  )

describe("ServeOnNarrowContext", () => {
  it("starts a request on only what serving needs, and its handler still gets its group's services", async () => {
    const narrow = await Effect.runPromise(run(ServeOnNarrowContext))
    expect(narrow.status).toBe(200)
    expect(narrow.body).toBe("olá")
    // The request, its span and scope, and what serving needs; none of the process's 61 services.
    expect(narrow.size).toBeLessThan(20)

    // HttpApiBuilder.serve(), which it replaces, starts every request on the whole process.
    const whole = await Effect.runPromise(run(HttpApiBuilder.serve()))
    expect(whole.body).toBe("olá")
    expect(whole.size).toBeGreaterThan(60)
  })

  it("builds the platform's request span only while the tracer is enabled (no exporter, no span)", async () => {
    const disabled = Effect.withTracerEnabled(false)
    expect((await Effect.runPromise(run(ServeOnNarrowContext))).span).toBe(true)
    expect((await Effect.runPromise(disabled(run(ServeOnNarrowContext)))).span).toBe(false)
    // HttpApiBuilder.serve() builds and provides a no-op span on every request regardless.
    expect((await Effect.runPromise(disabled(run(HttpApiBuilder.serve())))).span).toBe(true)
  })
})
