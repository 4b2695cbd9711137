import { Context, Effect, FiberRef, Layer } from "effect"
import type { Mode } from "../../domain/mode.ts"
import { CurrentMode } from "../../ports/Modes.ts"

/**
 * One port served by two adapters, one per mode (docs/decisions.md "Test and live modes"): every call
 * reads the mode it runs in (`CurrentMode`) and goes to that mode's adapter. No mode is a defect: a
 * port reached outside a tenant must be found and fixed, not served by whichever adapter is the default.
 */
export const routeByMode = <S extends object>(port: string, adapters: Readonly<Record<Mode, S>>): S => {
  const pick = Effect.flatMap(FiberRef.get(CurrentMode), (mode) =>
    mode === "test" || mode === "live"
      ? Effect.succeed(adapters[mode] as Record<string, unknown>)
      : Effect.dieMessage(`${port} was called outside a tenant: no mode is set (docs/decisions.md)`)
  )
  const routed: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(adapters.test)) {
    if (typeof member === "function") {
      routed[name] = (...args: ReadonlyArray<unknown>) =>
        Effect.flatMap(pick, (adapter) =>
          (adapter[name] as (...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>)(...args)
        )
    } else if (Effect.isEffect(member)) {
      routed[name] = Effect.flatMap(pick, (adapter) => adapter[name] as Effect.Effect<unknown, unknown>)
    } else {
      throw new TypeError(`${port}.${name} is neither a function nor an effect: it cannot be routed by mode`)
    }
  }
  return routed as S
}

/**
 * The layer of `tags` routed by mode: the test rails and the live rails are each built once, and each
 * tag's service dispatches to one of them per call. Whatever else the two layers provide passes through
 * (the sandbox bank's side door, LiveRails).
 */
export const byMode = <TestOut, E1, R1, LiveOut, E2, R2>(
  // Tags of different ports, each provided by both layers.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tags: ReadonlyArray<Context.Tag<any, any>>,
  test: Layer.Layer<TestOut, E1, R1>,
  live: Layer.Layer<LiveOut, E2, R2>
): Layer.Layer<TestOut | LiveOut, E1 | E2, R1 | R2> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const testContext = yield* Layer.build(test)
      const liveContext = yield* Layer.build(live)
      let context = Context.merge(testContext, liveContext) as Context.Context<TestOut | LiveOut>
      for (const tag of tags) {
        context = Context.add(
          context,
          tag,
          routeByMode(tag.key, {
            test: Context.unsafeGet(testContext, tag),
            live: Context.unsafeGet(liveContext, tag)
          })
        )
      }
      return context
    })
  )
