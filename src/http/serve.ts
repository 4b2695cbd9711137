import { Etag, FileSystem, HttpApiBuilder, HttpMiddleware, HttpPlatform, HttpServer, Path } from "@effect/platform"
import { Context, Effect, FiberRef, Layer, Scope } from "effect"

/** What serving needs of the process's context. */
type Serving =
  HttpServer.HttpServer | HttpPlatform.HttpPlatform | FileSystem.FileSystem | Path.Path | Etag.Generator | Scope.Scope

/**
 * `HttpApiBuilder.serve()`, with every request's fiber started on a context of only what serving
 * needs (issue 22, docs/performance.md "The request's context").
 *
 * A fiber's context is an immutable map that `provideService` and `Context.merge` copy whole. Served
 * by `HttpApiBuilder.serve()`, a request starts on the context the server was built in (the whole
 * process: about 95 services) and copies it about ten times before its handler runs (the request,
 * its span, its body limit, the envelope's note and accepted body, the principal, the route's
 * context). Each group's handlers still get every service they use: `HttpApiBuilder.group` merges
 * the context its layer was built in into the request's, once, as the handler starts.
 *
 * With the tracer disabled (no exporter: src/adapters/tracing/Tracing.ts), the platform's request span
 * is not built either: it would parse the trace headers, copy and redact the request's headers and
 * provide a span nobody exports, on every request.
 */
export const ServeOnNarrowContext = Layer.scopedDiscard(
  Effect.gen(function* () {
    const app = yield* HttpApiBuilder.httpApp
    const tracing = yield* FiberRef.get(FiberRef.currentTracerEnabled)
    // Not `Effect.provide`, which merges a context into the fiber's: this one replaces it.
    yield* HttpServer.serveEffect(app).pipe(
      Effect.mapInputContext((context: Context.Context<Serving>) =>
        Context.pick(
          HttpServer.HttpServer,
          HttpPlatform.HttpPlatform,
          FileSystem.FileSystem,
          Path.Path,
          Etag.Generator,
          Scope.Scope
        )(context)
      ),
      HttpMiddleware.withTracerDisabledWhenEffect(() => !tracing)
    )
  })
).pipe(Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]))
