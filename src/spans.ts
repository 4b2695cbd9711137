import { Effect, FiberRef, Option, Tracer } from "effect"

/**
 * Spans that cost nothing when no exporter listens (issue 10, docs/performance.md).
 *
 * `Effect.fn` and `Effect.withSpan` capture stack traces, build a span and copy the fiber's whole
 * context on every call, whether or not anything reads the span: a CPU profile of a PIX charge put a
 * third of the service's CPU there. These two do exactly what Effect's do while the fiber's tracer is
 * enabled, and run the bare program when it is not. `TracingLive` disables the tracer when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is unset, so spans exist precisely when they are exported.
 *
 * `ifTracing` picks one or the other by the fiber's tracer flag when the program runs, in one step of
 * the runtime (a `flatMap` over the flag took three, about 35 times a charge: docs/performance.md
 * "The runtime's steps").
 */
const ifTracing = <A, E, R>(on: () => Effect.Effect<A, E, R>, off: () => Effect.Effect<A, E, R>) =>
  Effect.withFiberRuntime<A, E, R>((fiber) => (fiber.getFiberRef(FiberRef.currentTracerEnabled) ? on() : off()))

/** `Effect.fn(name)`: the body runs in a span named `name` when tracing is on. */
export const fn = (name: string, options?: Tracer.SpanOptions): Effect.fn.Gen & Effect.fn.NonGen =>
  ((body: (...args: Array<unknown>) => unknown, ...pipeables: Array<unknown>) => {
    const traced = (
      Effect.fn(name, options) as (...a: Array<unknown>) => (...args: Array<unknown>) => Effect.Effect<unknown>
    )(body, ...pipeables)
    const untraced = (
      Effect.fnUntraced as (...a: Array<unknown>) => (...args: Array<unknown>) => Effect.Effect<unknown>
    )(body, ...pipeables)
    return function (this: unknown, ...args: Array<unknown>) {
      return ifTracing(
        () => traced.apply(this, args),
        () => untraced.apply(this, args)
      )
    }
  }) as unknown as Effect.fn.Gen & Effect.fn.NonGen

/** `Effect.withSpan(name, options)`, when tracing is on. */
export const withSpan =
  (name: string, options?: Tracer.SpanOptions) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    ifTracing(
      () => Effect.withSpan(self, name, options),
      () => self
    )

/** A span's W3C ids, or nothing for the no-op span a disabled tracer hands out. */
export const exportedSpan = <S extends Tracer.AnySpan>(span: S): S | undefined =>
  /^[0-9a-f]{32}$/.test(span.traceId) && /^[0-9a-f]{16}$/.test(span.spanId) ? span : undefined

/**
 * The fiber's current span when it is exported, read without failing: `Effect.option(Effect.currentSpan)`
 * builds a `NoSuchElementException`, stack trace and all, whenever there is none — on every request
 * and charge while tracing is off (3 % of an authenticated GET's CPU: docs/performance.md "Admissions
 * in batches").
 */
export const currentExportedSpan: Effect.Effect<Option.Option<Tracer.Span>> = Effect.map(
  Effect.serviceOption(Tracer.ParentSpan),
  (parent) => Option.flatMapNullable(parent, (span) => (span._tag === "Span" ? exportedSpan(span) : undefined))
)
